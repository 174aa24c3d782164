import QuireCore
import QuireModel

// `GET /api/sites/{site}/schema`: what the dashboard draws its forms from, made from the
// registry the validator reads (the built-in vocabulary and the site's vocabulary file) and
// `PageEnvelope`: the service keeps no list of fields of its own.
extension DashboardService {
    func schema(_ site: String) throws(DashboardError) -> HTTPResponse {
        _ = try folder(site)
        let draft = draftSite(site)
        guard let config = draft.config, let vocabulary = draft.vocabulary else {
            throw DashboardError(
                .unprocessable, "the site's settings have errors: fix them first",
                JSONObject([("diagnostics", .array(draft.settingsDiagnostics.map(DiagnosticJSON.make)))]))
        }
        return .json(Self.schemaJSON(vocabulary: vocabulary, config: config, assets: draft.assets, pages: draft.pageSources.keys.sorted()))
    }

    static func schemaJSON(vocabulary: Vocabulary, config: SiteConfig, assets: [String], pages: [String]) -> JSONValue {
        .object(
            JSONObject([
                ("envelope", .array(PageEnvelope.fields.map(envelopeField))),
                ("section_fields", .array(PageEnvelope.sectionFields.map(envelopeField))),
                (
                    "types",
                    .array(
                        vocabulary.types.map { type in
                            .object(
                                JSONObject([
                                    ("name", .string(type.name)), ("summary", .string(type.summary)),
                                    ("fields", .array(type.fields.map(field))),
                                ]))
                        })
                ),
                ("audiences", .array(config.audiences.map { .string($0) })), ("locales", .array(config.locales.map { .string($0) })),
                ("default_locale", .string(config.defaultLocale)), ("assets", .array(assets.map { .string("/assets/" + $0) })),
                ("app_routes", .array(config.appRoutes.sorted().map { .string($0) })), ("pages", .array(pages.map { .string($0) })),
            ]))
    }

    static func field(_ spec: FieldSpec) -> JSONValue {
        var object = JSONObject([
            ("name", .string(spec.name)), ("kind", .string(spec.kind.name)), ("required", .bool(spec.required)),
            ("translatable", .bool(spec.translatable)), ("summary", .string(spec.summary)),
        ])
        switch spec.kind {
        case .enumeration(let values): object["values"] = .array(values.map { .string($0) })
        case .items(let fields): object["fields"] = .array(fields.map(field))
        default: break
        }
        return .object(object)
    }

    static func envelopeField(_ field: PageEnvelope.Field) -> JSONValue {
        .object(
            JSONObject([
                ("name", .string(field.name)), ("kind", .string(field.kind)), ("required", .bool(false)),
                ("translatable", .bool(field.translatable)), ("summary", .string(field.summary)),
            ]))
    }
}
