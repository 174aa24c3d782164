import QuireCore
import QuireModel

// `POST /api/sites/{site}/check`: a draft through the real pipeline, in memory.
extension DashboardService {
    func check(_ site: String, _ request: SCGIRequest) throws(DashboardError) -> HTTPResponse {
        let body = try jsonBody(request)
        guard let id = body["id"]?.stringValue else { throw .badRequest("a check needs the page's 'id'") }
        let folder = try folder(site)
        let asked: SourceFormat = body["format"]?.stringValue == "json" ? .json : .yaml
        var file = try folder.newPage(id, format: asked)
        if let existing = try folder.pageSource(id) { file = existing }
        let text: String
        if let given = body["text"]?.stringValue {
            text = given
        } else if let document = body["document"] {
            text = try Self.sourceText(document, format: file.format)
        } else {
            throw .badRequest("a check needs 'text' (the file's text) or 'document' (the page as JSON)")
        }
        let bytes = Array(text.utf8)
        let draft = draftSite(site).check(pageID: id, relativePath: file.relativePath, bytes: bytes)
        // The draft as a value, for the form (null when it does not parse; the diagnostics say why).
        let document = (try? SourceParser.parse(bytes, format: file.format, file: file.relativePath))?.json
        var rendered = JSONObject()
        for locale in draft.rendered {
            rendered[locale.locale] = .object(
                JSONObject([
                    ("page", locale.parts.first ?? .null), ("parts", .array(locale.parts)),
                    ("audiences", .object(JSONObject(locale.audiences.map { ($0.name, $0.parts.first ?? .null) }))),
                ]))
        }
        return .json(
            .object(
                JSONObject([
                    ("diagnostics", .array(draft.diagnostics.map(DiagnosticJSON.make))), ("text", .string(text)),
                    ("document", document ?? .null),
                    ("path", .string(file.relativePath)), ("format", .string(file.format.rawValue)), ("rendered", .object(rendered)),
                ])))
    }
}
