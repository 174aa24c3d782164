import Foundation
import QuireCore
import QuireModel

// Reading and writing page sources: `GET`, `PUT` and `DELETE /api/sites/{site}/pages/{id}`,
// `POST /api/sites/{site}/pages`. Every write goes through `AtomicFile` after the stale-base
// check; the watcher publishes it like any other save.
extension DashboardService {
    func page(_ site: String, _ id: String) throws(DashboardError) -> HTTPResponse {
        guard let file = try folder(site).pageSource(id) else { throw .notFound("no page '\(id)' in \(site)") }
        let bytes = try read(file)
        let text = String(validating: bytes, as: UTF8.self)
        let draft = draftSite(site).check(pageID: id, relativePath: file.relativePath, bytes: bytes)
        let document = (try? SourceParser.parse(bytes, format: file.format, file: file.relativePath))?.json
        return .json(
            .object(
                JSONObject([
                    ("id", .string(id)), ("path", .string(file.relativePath)), ("format", .string(file.format.rawValue)),
                    ("text", text.map(JSONValue.string) ?? .null), ("base", .string(SHA256.hash(bytes))),
                    ("document", document ?? .null),
                    ("has_comments", .bool(file.format == .yaml && text.map(YAMLComments.present) == true)),
                    ("diagnostics", .array(draft.diagnostics.map(DiagnosticJSON.make))),
                ])))
    }

    /// `{"base", "text"}` writes the text as it is; `{"base", "document", "drop_comments"}` writes
    /// the document in the file's own format.
    func savePage(_ site: String, _ id: String, _ request: SCGIRequest) throws(DashboardError) -> HTTPResponse {
        let body = try jsonBody(request)
        guard let file = try folder(site).pageSource(id) else { throw .notFound("no page '\(id)' in \(site): create it first") }
        guard let base = body["base"]?.stringValue else {
            throw .badRequest("a save needs 'base': the sha256 of the file as it was opened")
        }
        let bytes: [UInt8]
        if let text = body["text"]?.stringValue {
            bytes = Array(text.utf8)
        } else if let document = body["document"] {
            let dropComments = body["drop_comments"]?.boolValue ?? false
            if file.format == .yaml, !dropComments, let old = try? read(file),
                YAMLComments.present(in: String(decoding: old, as: UTF8.self))
            {
                throw DashboardError(
                    .conflict, "this file has comments, which a form save drops: save from the text mode to keep them, or drop them",
                    JSONObject([("comments", .bool(true))]))
            }
            bytes = Array(try Self.sourceText(document, format: file.format).utf8)
        } else {
            throw .badRequest("a save needs 'text' (the file's new text) or 'document' (the page as JSON)")
        }
        try checkSize(bytes, site: site)
        let yourText = String(decoding: bytes, as: UTF8.self)
        let saveID = try save(site, file.relativePath, request) { () throws(DashboardError) in
            try AtomicFile.write(bytes, to: file.path) { () throws(DashboardError) in
                try self.checkBase(file, base: base, yourText: yourText)
            }
        }
        return .json(.object(JSONObject([("base", .string(SHA256.hash(bytes))), ("save_id", .string(saveID))])))
    }

    /// `{"id", "format", "copy_of", "sections"}`: a new page, blank, with sections of the given
    /// types, or a copy of another page.
    func createPage(_ site: String, _ request: SCGIRequest) throws(DashboardError) -> HTTPResponse {
        let body = try jsonBody(request)
        guard let id = body["id"]?.stringValue else { throw .badRequest("a new page needs an 'id'") }
        let folder = try folder(site)
        let format: SourceFormat
        switch body["format"]?.stringValue ?? "yaml" {
        case "yaml": format = .yaml
        case "json": format = .json
        case let other: throw .badRequest("format must be yaml or json, not '\(other.prefix(20))'")
        }
        if try folder.pageSource(id) != nil { throw DashboardError(.conflict, "page '\(id)' exists already: choose another id") }
        let document: JSONValue
        if let original = body["copy_of"]?.stringValue {
            guard let source = try folder.pageSource(original) else { throw .notFound("no page '\(original)' to copy") }
            guard let root = try? SourceParser.parse(try read(source), format: source.format, file: source.relativePath),
                case .object(var copied) = root.json
            else { throw DashboardError(.unprocessable, "page '\(original)' does not parse: fix it before copying it") }
            if copied["page_id"] != nil { copied["page_id"] = .string(id) }
            document = .object(copied)
        } else {
            let types = (body["sections"]?.arrayValue ?? []).compactMap(\.stringValue)
            let vocabulary = draftSite(site).vocabulary ?? .builtIn
            for type in types where vocabulary[type] == nil { throw .badRequest("'\(type.prefix(60))' is not a section type of this site") }
            document = Self.blankPage(id: id, types: types)
        }
        let file = try folder.newPage(id, format: format)
        let bytes = Array(try Self.sourceText(document, format: format).utf8)
        try folder.makeFolders(of: file.relativePath)
        let saveID = try save(site, file.relativePath, request) { () throws(DashboardError) in try AtomicFile.create(bytes, at: file.path) }
        forgetDraftSite(site)
        return .json(
            .object(
                JSONObject([
                    ("id", .string(id)), ("path", .string(file.relativePath)), ("base", .string(SHA256.hash(bytes))),
                    ("save_id", .string(saveID)),
                ])), status: .created)
    }

    /// `?base=<sha256>`: the page as it was opened; the published history keeps its versions.
    func deletePage(_ site: String, _ id: String, _ request: SCGIRequest) throws(DashboardError) -> HTTPResponse {
        guard let file = try folder(site).pageSource(id) else { throw .notFound("no page '\(id)' in \(site)") }
        guard let base = request.query["base"] else { throw .badRequest("a delete needs ?base=<sha256 of the file as it was opened>") }
        let saveID = try save(site, file.relativePath, request) { () throws(DashboardError) in
            try AtomicFile.remove(file.path) { () throws(DashboardError) in try self.checkBase(file, base: base, yourText: nil) }
        }
        forgetDraftSite(site)
        return .json(.object(JSONObject([("save_id", .string(saveID))])))
    }

    /// Refuses a write made from a stale copy: the file's bytes now must hash to `base`.
    private func checkBase(_ file: PageFile, base: String, yourText: String?) throws(DashboardError) {
        let now = try read(file)
        guard SHA256.hash(now) == base.lowercased() else {
            var more = JSONObject([("conflict", .bool(true)), ("disk_text", .string(String(decoding: now, as: UTF8.self)))])
            more["disk_base"] = .string(SHA256.hash(now))
            if let yourText { more["your_text"] = .string(yourText) }
            throw DashboardError(
                .conflict, "\(file.relativePath) changed on disk since it was opened: nothing was written; compare both texts", more)
        }
    }

    private func checkSize(_ bytes: [UInt8], site: String) throws(DashboardError) {
        let limit = draftSite(site).config?.limits.maxFileBytes ?? SourceLimits.default.maxFileBytes
        guard bytes.count <= limit else {
            throw DashboardError(
                .payloadTooLarge, "the page would be \(bytes.count) bytes, over the limit of \(limit) (limits in site.yaml)")
        }
    }

    func read(_ file: PageFile) throws(DashboardError) -> [UInt8] {
        do throws(SourceReadError) {
            return try SourceFileReader().read(file.path)
        } catch {
            throw DashboardError(.unprocessable, "\(file.relativePath): this file \(error.message)")
        }
    }

    /// A page document as its source text: YAML as people write it, or pretty JSON.
    static func sourceText(_ document: JSONValue, format: SourceFormat) throws(DashboardError) -> String {
        guard case .object = document else { throw .badRequest("'document' must be a page: a JSON object") }
        switch format {
        case .json: return JSONWriter(pretty: true).string(document)
        case .yaml:
            guard let text = YAMLWriter.text(document) else {
                throw DashboardError(.unprocessable, "this document cannot be written as YAML")
            }
            return text
        }
    }

    static func blankPage(id: String, types: [String]) -> JSONValue {
        let title = id.split(separator: "/").last.map { $0.replacingOccurrences(of: "-", with: " ").capitalized } ?? id
        var used: [String: Int] = [:]
        let sections = types.map { type -> JSONValue in
            used[type, default: 0] += 1
            let count = used[type]!
            let sectionID = type.replacingOccurrences(of: "_", with: "-") + (count > 1 ? "-\(count)" : "")
            return .object(JSONObject([("type", .string(type)), ("id", .string(sectionID))]))
        }
        return .object(JSONObject([("title", .string(title)), ("sections", .array(sections))]))
    }
}
