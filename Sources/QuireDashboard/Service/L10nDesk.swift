import Foundation
import QuireCore
import QuireModel

/// The translators' view of one site, loaded through `SiteTranslations` as `quire l10n` loads
/// it (keeping what is unchanged between requests, `SiteTranslationsCache`): coverage, a page's
/// strings, saves written by the export's writer in the file's own format and checked as an
/// import is, previews through the draft pipeline, and the export and import of `quire l10n`
/// themselves.
struct L10nDesk {
    let service: DashboardService
    let site: String
    let folder: SiteFolder
    let translations: SiteTranslations

    /// The site's translations; with `pages`, only those pages' (a request about one page).
    init(service: DashboardService, site: String, pages: Set<String>? = nil) throws(DashboardError) {
        folder = try service.folder(site)
        self.service = service
        self.site = site
        do throws(SiteTranslations.LoadFailure) {
            translations = try SiteTranslations.load(
                service.draftSite(site), siteRoot: folder.root, pages: pages, cache: service.translationCache(site))
        } catch {
            throw DashboardError(
                .unprocessable, "\(site)'s site.yaml or vocabulary has errors: fix them first",
                JSONObject([("diagnostics", .array(error.diagnostics.filter(\.isError).map(DiagnosticJSON.make)))]))
        }
    }

    func checkLocale(_ locale: String) throws(DashboardError) -> String {
        let config = translations.config
        guard config.locales.contains(locale), locale != config.defaultLocale else {
            let others = config.locales.filter { $0 != config.defaultLocale }
            throw .notFound(
                "'\(locale.prefix(20))' is not a locale to translate \(site) into (its locales: \(others.joined(separator: ", ")))")
        }
        return locale
    }

    /// Per locale the figures `quire l10n status` prints, and per page and locale the same with
    /// how many strings fall back along the chain.
    func coverage() -> HTTPResponse {
        let config = translations.config
        let locales = translations.coverage().map { coverage -> JSONValue in
            var object = coverage.json.objectValue ?? JSONObject()
            object["chain"] = .array(config.chain(for: coverage.locale).map { .string($0) })
            object["default"] = .bool(coverage.locale == config.defaultLocale)
            object["direction"] = .string(TextDirection(locale: coverage.locale).rawValue)
            return .object(object)
        }
        let translated = config.locales.filter { $0 != config.defaultLocale }
        let pages = translations.pages.map { page -> JSONValue in
            var perLocale = JSONObject()
            for locale in translated {
                var object = translations.coverage(pageID: page.pageID, locale: locale).json.objectValue ?? JSONObject()
                object["falling_back"] = .integer(translations.fallingBack(pageID: page.pageID, locale: locale))
                perLocale[locale] = .object(object)
            }
            return .object(JSONObject([("id", .string(page.pageID)), ("locales", .object(perLocale))]))
        }
        return .json(
            .object(
                JSONObject([
                    ("site", .string(site)), ("default_locale", .string(config.defaultLocale)), ("locales", .array(locales)),
                    ("pages", .array(pages)),
                    ("errors", .array(translations.diagnostics.filter(\.isError).prefix(200).map(DiagnosticJSON.make))),
                ])))
    }

    func page(_ id: String, locale: String) throws(DashboardError) -> HTTPResponse {
        guard translations.page(id) != nil else { throw .notFound("no page '\(id)' in \(site) to translate (or it has errors)") }
        let file = translations.translationFile(pageID: id, locale: locale)
        let existing = try existingBytes(id, locale: locale)
        let strings = translations.strings(pageID: id, locale: locale).map { string -> JSONValue in
            .object(
                JSONObject([
                    ("key", .string(string.key)), ("source", .string(string.source)),
                    ("translation", string.translation.map(JSONValue.string) ?? .null),
                    ("state", .string(string.state == .new ? "missing" : string.state.rawValue)),
                    ("old_source", string.oldSource.map(JSONValue.string) ?? .null), ("markdown", .bool(string.isMarkdown)),
                    ("fallback", string.fallback.map(JSONValue.string) ?? .null),
                ]))
        }
        return .json(
            .object(
                JSONObject([
                    ("id", .string(id)), ("locale", .string(locale)), ("direction", .string(TextDirection(locale: locale).rawValue)),
                    ("chain", .array(translations.config.chain(for: locale).map { .string($0) })),
                    ("file", file.map { .string($0.file.relativePath) } ?? .null),
                    ("format", .string(existing.map { _ in styleName(id, locale: locale, existing: existing) } ?? "yaml")),
                    ("base", .string(existing.map(SHA256.hash) ?? "")), ("strings", .array(strings)),
                ])))
    }

    /// `{"base", "strings": {key: text}}`: the page's translation file for the locale rewritten
    /// with these strings, atomically; refused on a stale base (409) or when the import's checks
    /// find an error (422, each at its string), and then nothing is written.
    func save(_ id: String, locale: String, body: JSONObject, request: SCGIRequest) throws(DashboardError) -> HTTPResponse {
        let edits = try strings(body, page: id)
        guard let base = body["base"]?.stringValue else {
            throw .badRequest("a save needs 'base': the sha256 of the translation file as it was opened (\"\" when there was none)")
        }
        let existing = try existingBytes(id, locale: locale)
        try checkBase(existing, base: base, id: id, locale: locale)
        let edited = translations.edited(pageID: id, locale: locale, edits: edits, existing: existing)
        try refuseErrors(edited.diagnostics)
        let path = folder.root + "/" + edited.relativePath
        try folder.makeFolders(of: edited.relativePath)
        let saveID = try service.save(site, edited.relativePath, request) { () throws(DashboardError) in
            try AtomicFile.write(edited.bytes, to: path) { () throws(DashboardError) in
                try checkBase(try existingBytes(id, locale: locale), base: base, id: id, locale: locale)
            }
        }
        // The next request reads the new file before the watcher's build says it is there.
        service.updateDraftSite(site, wrote: edited.relativePath)
        return .json(
            .object(
                JSONObject([
                    ("base", .string(SHA256.hash(edited.bytes))), ("save_id", .string(saveID)), ("path", .string(edited.relativePath)),
                    ("format", .string(edited.style.rawValue)),
                ])))
    }

    /// `{"strings": {key: text}}`: the page in `locale` with these strings, rendered by the draft
    /// pipeline (nothing written), and what the import's checks say of them.
    func preview(_ id: String, locale: String, body: JSONObject) throws(DashboardError) -> HTTPResponse {
        let edits = try strings(body, page: id)
        guard let source = try folder.pageSource(id) else { throw .notFound("no page '\(id)' in \(site)") }
        let edited = translations.edited(pageID: id, locale: locale, edits: edits, existing: try existingBytes(id, locale: locale))
        var rendered = JSONObject()
        if let catalog = edited.catalog, !edited.diagnostics.hasErrors {
            let bytes = try service.read(source)
            let draft = service.draftSite(site).check(
                pageID: id, relativePath: source.relativePath, bytes: bytes, translation: (locale, catalog))
            if let shown = draft.rendered.first(where: { $0.locale == locale }), let first = shown.parts.first {
                rendered[locale] = .object(JSONObject([("page", first), ("parts", .array(shown.parts))]))
            }
        }
        return .json(
            .object(
                JSONObject([
                    ("diagnostics", .array(edited.diagnostics.map(DiagnosticJSON.make))), ("rendered", .object(rendered)),
                    ("direction", .string(TextDirection(locale: locale).rawValue)),
                ])))
    }

    /// `?format=xliff12|xliff20|po&only=missing,stale`: the page's file as `quire l10n export` writes it.
    func export(_ id: String, locale: String, query: [String: String]) throws(DashboardError) -> HTTPResponse {
        guard translations.page(id) != nil else { throw .notFound("no page '\(id)' in \(site) to export (or it has errors)") }
        let name = query["format"] ?? "xliff12"
        guard let format = ExportFormat(rawValue: name) else {
            throw .badRequest("format must be one of \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var states = Set(ExportUnit.State.allCases)
        if let only = query["only"], !only.isEmpty {
            states = []
            for word in only.split(separator: ",") {
                switch word {
                case "missing", "new": states.insert(.new)
                case "stale": states.insert(.stale)
                case "translated": states.insert(.translated)
                default: throw .badRequest("only takes missing, stale and translated, comma-separated")
                }
            }
        }
        let units = translations.exportUnits(pageID: id, locale: locale).filter { states.contains($0.state) }
        let bytes = TranslationFileWriter.write(
            units: units, pageID: id, sourceLocale: translations.config.defaultLocale, targetLocale: locale, format: format)
        let type =
            switch format {
            case .xliff12, .xliff20: "application/xliff+xml; charset=utf-8"
            case .po: "text/x-gettext-translation; charset=utf-8"
            case .json: "application/json; charset=utf-8"
            }
        let file = "\(id.split(separator: "/").joined(separator: "-")).\(locale).\(format.pathExtension)"
        return HTTPResponse(
            status: .ok, headers: [("Content-Type", type), ("Content-Disposition", "attachment; filename=\"\(file)\"")], body: bytes)
    }

    /// A translated file (the request's body) named `name`: checked and placed by `quire l10n
    /// import`'s own code; its errors come back with line and column.
    func importFile(_ name: String, locale: String, bytes: [UInt8], request: SCGIRequest) throws(DashboardError) -> HTTPResponse {
        let parts = name.split(separator: ".")
        guard parts.count >= 2, name.utf8.count <= 200, name.first != ".",
            name.utf8.allSatisfy({ Identifier.isValid(String(UnicodeScalar($0))) || $0 == UInt8(ascii: ".") }),
            TranslationFormat(pathExtension: String(parts.last!)) != nil
        else {
            throw .badRequest("name the file like home.xlf: letters, digits, '-', '_' and '.', ending .xlf, .xliff, .po, .json or .yaml")
        }
        let limit = translations.config.limits.maxFileBytes
        guard bytes.count <= limit else {
            throw DashboardError(.payloadTooLarge, "the file is \(bytes.count) bytes, over the limit of \(limit)")
        }
        let folder = NSTemporaryDirectory() + "quire-import-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/" + name
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        } catch {
            throw DashboardError(.internalError, "cannot keep the uploaded file for its checks: \(error.localizedDescription)")
        }
        // Checked first without writing: the save is in the ledger before its file lands.
        var result = translations.importFile(path, locale: locale, write: false)
        var saveID = ""
        if let destination = result.destination {
            let relative = String(destination.dropFirst(translations.displayRoot.count + 1))
            saveID = try service.save(site, relative, request) { () throws(DashboardError) in
                result = translations.importFile(path, locale: locale)
                if result.destination == nil { throw DashboardError(.unprocessable, "\(name): not imported") }
            }
            service.updateDraftSite(site, wrote: relative)
        }
        let diagnostics = result.diagnostics.map { diagnostic -> JSONValue in
            var shown = diagnostic
            if shown.file == path { shown.file = name }
            return DiagnosticJSON.make(shown)
        }
        guard let destination = result.destination else {
            let first = result.diagnostics.first(where: \.isError).map {
                "\(name):\($0.position.line):\($0.position.column): \($0.message)"
            }
            throw DashboardError(
                .unprocessable, "\(first ?? "\(name): not imported"): nothing was written",
                JSONObject([("diagnostics", .array(diagnostics))]))
        }
        return .json(
            .object(
                JSONObject([
                    ("destination", .string(String(destination.dropFirst(service.absolutePagesRoot.count + 1)))),
                    ("page", .string(result.pageID ?? "")), ("locale", .string(result.locale ?? locale)),
                    ("entries", .integer(result.entries)), ("save_id", .string(saveID)), ("diagnostics", .array(diagnostics)),
                ])))
    }

    // MARK: shared

    private func strings(_ body: JSONObject, page id: String) throws(DashboardError) -> [String: String] {
        guard let page = translations.page(id) else { throw .notFound("no page '\(id)' in \(site) to translate (or it has errors)") }
        guard let object = body["strings"]?.objectValue else { throw .badRequest("'strings' must map each key to its translated text") }
        let keys = Set(page.strings.map(\.key))
        var edits: [String: String] = [:]
        for member in object.members {
            guard keys.contains(member.key) else { throw .badRequest("page '\(id)' has no string '\(member.key.prefix(80))'") }
            guard let text = member.value.stringValue else {
                throw .badRequest("the translation of '\(member.key.prefix(80))' must be text")
            }
            edits[member.key] = text
        }
        return edits
    }

    private func existingBytes(_ id: String, locale: String) throws(DashboardError) -> [UInt8]? {
        guard let file = translations.translationFile(pageID: id, locale: locale) else { return nil }
        let path = folder.root + "/" + file.file.relativePath
        try folder.checkFolders(of: file.file.relativePath)
        guard FileSystemEntry.exists(path) else { return nil }
        do throws(SourceReadError) {
            return try SourceFileReader().read(path)
        } catch {
            throw DashboardError(.unprocessable, "\(file.file.relativePath): this file \(error.message)")
        }
    }

    private func styleName(_ id: String, locale: String, existing: [UInt8]?) -> String {
        guard let file = translations.translationFile(pageID: id, locale: locale), let existing else { return "yaml" }
        let pathExtension = (file.file.relativePath as NSString).pathExtension
        return TranslationFileStyle(pathExtension: pathExtension, bytes: existing)?.rawValue ?? "yaml"
    }

    private func checkBase(_ bytes: [UInt8]?, base: String, id: String, locale: String) throws(DashboardError) {
        let now = bytes.map(SHA256.hash) ?? ""
        guard now == base.lowercased() else {
            throw DashboardError(
                .conflict, "the \(locale) translation of '\(id)' changed on disk since it was opened: nothing was written; reload it",
                JSONObject([("conflict", .bool(true)), ("disk_base", .string(now))]))
        }
    }

    /// The import's errors, each at the string it is about (`key`), refuse the save.
    private func refuseErrors(_ diagnostics: [Diagnostic]) throws(DashboardError) {
        let errors = diagnostics.filter(\.isError)
        guard let first = errors.first else { return }
        let listed = errors.map { error -> JSONValue in
            .object(
                JSONObject([
                    ("key", error.keyPath.isEmpty ? .null : .string(error.keyPath)), ("message", .string(error.message)),
                    ("text", .string(error.description)),
                ]))
        }
        throw DashboardError(
            .unprocessable,
            "\(first.keyPath.isEmpty ? "" : "\(first.keyPath): ")\(first.message): nothing was written",
            JSONObject([("errors", .array(listed))]))
    }
}
