import Foundation
import QuireCore
import QuireDashboard
import QuireModel
import Testing

/// Saving a page's translations from the dashboard: the file keeps its format (an XLIFF file
/// from a translation tool differs only in the edited string), the import's checks refuse a
/// dropped link at its string, a stale base is refused, and a locale without a file gets YAML.
struct TranslationSaveTests {
    let fixture: DashboardFixture
    init() throws { fixture = try DashboardFixture() }

    static let xliff = "l10n/fr/guides/church-security.xlf"

    func strings(_ locale: String, _ id: String) -> (status: Int, body: JSONValue) {
        fixture.json(fixture.send("GET", "/api/sites/trex/l10n/\(locale)/pages/\(id)"))
    }

    func save(_ locale: String, _ id: String, base: String, _ edits: [(String, String)]) -> (status: Int, body: JSONValue) {
        let strings = JSONValue.object(JSONObject(edits.map { ($0.0, JSONValue.string($0.1)) }))
        return fixture.json(
            fixture.send("PUT", "/api/sites/trex/l10n/\(locale)/pages/\(id)", json: ["base": .string(base), "strings": strings]))
    }

    @Test func anXLIFFFileFromATranslationToolChangesOnlyInTheEditedString() throws {
        let before = try #require(fixture.read(Self.xliff))
        let page = strings("fr", "guides/church-security").body
        #expect(page["format"]?.stringValue == "xliff20")
        #expect(page["base"]?.stringValue == SHA256.hash(before))
        let (status, body) = save(
            "fr", "guides/church-security", base: SHA256.hash(before), [("hero.title", "Protéger l'assemblée & ses membres")])
        #expect(status == 200, "\(body)")
        let after = try #require(fixture.read(Self.xliff))
        let old = String(decoding: before, as: UTF8.self)
        let new = String(decoding: after, as: UTF8.self)
        #expect(
            new
                == old.replacingOccurrences(
                    of: "<target>Protéger votre assemblée</target>", with: "<target>Protéger l'assemblée &amp; ses membres</target>"))
        let reread = strings("fr", "guides/church-security").body["strings"]?.arrayValue ?? []
        let hero = reread.first { $0["key"]?.stringValue == "hero.title" }
        #expect(hero?["translation"]?.stringValue == "Protéger l'assemblée & ses membres")
        #expect(hero?["state"]?.stringValue == "translated")
    }

    @Test func aDroppedLinkIsAnErrorAtItsStringAndNothingIsWritten() throws {
        let before = try #require(fixture.read(Self.xliff))
        let (status, body) = save("fr", "guides/church-security", base: SHA256.hash(before), [("intro.body", "Pas de lien ici.")])
        #expect(status == 422)
        let errors = body["errors"]?.arrayValue ?? []
        #expect(
            errors.contains { $0["key"]?.stringValue == "intro.body" && $0["message"]?.stringValue?.contains("link") == true }, "\(body)")
        #expect(fixture.read(Self.xliff) == before)
    }

    @Test func aDroppedPlaceholderIsRefused() throws {
        let sourcePath = fixture.site + "/trex-store.yaml"
        let source = try String(contentsOfFile: sourcePath, encoding: .utf8)
        try source.replacingOccurrences(of: "title: Training Essentials", with: "title: Training Essentials for {count} shooters")
            .write(toFile: sourcePath, atomically: true, encoding: .utf8)
        let page = strings("fr", "trex-store").body
        let before = fixture.read("l10n/fr/trex-store.yaml")
        let (status, body) = save(
            "fr", "trex-store", base: page["base"]?.stringValue ?? "", [("hero.title", "L'essentiel pour les tireurs")])
        #expect(status == 422)
        #expect(body["errors"]?.arrayValue?.first?["key"]?.stringValue == "hero.title", "\(body)")
        #expect(body["errors"]?.arrayValue?.first?["message"]?.stringValue?.contains("{count}") == true, "\(body)")
        #expect(fixture.read("l10n/fr/trex-store.yaml") == before)
        let kept = save("fr", "trex-store", base: page["base"]?.stringValue ?? "", [("hero.title", "L'essentiel pour {count} tireurs")])
        #expect(kept.status == 200, "\(kept.body)")
    }

    @Test func aStaleBaseIsRefused() throws {
        let before = try #require(fixture.read(Self.xliff))
        let (status, body) = save("fr", "guides/church-security", base: SHA256.hash(Array("other".utf8)), [("hero.title", "Autre")])
        #expect(status == 409)
        #expect(body["conflict"]?.boolValue == true)
        #expect(fixture.read(Self.xliff) == before)
    }

    @Test func aLocaleWithoutAFileGetsYAML() throws {
        #expect(fixture.read("l10n/es/guides/church-security.yaml") == nil)
        let page = strings("es", "guides/church-security").body
        #expect(page["base"]?.stringValue == "")
        #expect(page["strings"]?.arrayValue?.allSatisfy { $0["state"]?.stringValue == "missing" } == true)
        let (status, body) = save("es", "guides/church-security", base: "", [("hero.title", "Proteger a su congregación")])
        #expect(status == 200, "\(body)")
        #expect(body["path"]?.stringValue == "l10n/es/guides/church-security.yaml")
        let text = String(decoding: try #require(fixture.read("l10n/es/guides/church-security.yaml")), as: UTF8.self)
        #expect(text.contains("hero.title:") && text.contains("Proteger a su congregación"))
        let hero = strings("es", "guides/church-security").body["strings"]?.arrayValue?.first { $0["key"]?.stringValue == "hero.title" }
        #expect(hero?["state"]?.stringValue == "translated")
    }

    @Test func anUnknownKeyOrLocaleIsRefused() {
        #expect(save("fr", "trex-store", base: "", [("no.such.key", "x")]).status == 400)
        #expect(strings("de", "trex-store").status == 404)
        #expect(strings("en", "trex-store").status == 404)
    }

    @Test func coverageHasTheStatusFigures() throws {
        let body = fixture.json(fixture.send("GET", "/api/sites/trex/l10n")).body
        let translations = try SiteTranslations.load(site: "trex", pagesRoot: fixture.pages)
        for coverage in translations.coverage() {
            let shown = body["locales"]?.arrayValue?.first { $0["locale"]?.stringValue == coverage.locale }
            #expect(shown?["translated"]?.intValue == coverage.translated)
            #expect(shown?["missing"]?.intValue == coverage.missing)
            #expect(shown?["stale"]?.intValue == coverage.stale)
        }
        #expect(body["locales"]?.arrayValue?.first { $0["locale"]?.stringValue == "fr-CA" }?["chain"] == ["fr-CA", "fr", "en"])
        // The drill catalog (`drills.yaml`) is data, not a page: neither listed nor an error.
        #expect(
            body["pages"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [
                "guides/church-security", "guides/range-safety", "trex-store",
            ])
        let errors = body["errors"]?.arrayValue?.compactMap { $0["file"]?.stringValue } ?? []
        #expect(!errors.contains { $0.hasSuffix("drills.yaml") }, "\(errors)")
    }
}

/// Export and import through the service: `quire l10n`'s writer and import checks, errors with
/// line and column, nothing written on an error.
struct TranslationExchangeTests {
    let fixture: DashboardFixture
    init() throws { fixture = try DashboardFixture() }

    func upload(_ name: String, _ bytes: [UInt8], locale: String = "es") -> (status: Int, body: JSONValue) {
        fixture.json(fixture.send("POST", "/api/sites/trex/l10n/\(locale)/import?name=\(name)", body: bytes))
    }

    func export(_ format: String) -> String {
        String(decoding: fixture.send("GET", "/api/sites/trex/l10n/es/export/guides/church-security?format=\(format)").body, as: UTF8.self)
    }

    @Test func anExportIsWhatTheCommandWrites() throws {
        let translations = try SiteTranslations.load(site: "trex", pagesRoot: fixture.pages)
        let units = translations.exportUnits(pageID: "guides/church-security", locale: "es")
        let expected = TranslationFileWriter.write(
            units: units, pageID: "guides/church-security", sourceLocale: "en", targetLocale: "es", format: .xliff20)
        #expect(Array(export("xliff20").utf8) == expected)
        let response = fixture.send("GET", "/api/sites/trex/l10n/es/export/guides/church-security?format=po")
        #expect(response.headers.contains { $0.name == "Content-Disposition" && $0.value.contains("attachment") })
    }

    @Test func aTranslatedExportImportsAndADroppedLinkIsPlaced() throws {
        let exported = export("xliff12")
        let translated = exported.replacingOccurrences(
            of: #"(?s)(<source>((?:(?!</source>).)*)</source>)"#, with: "$1\n        <target state=\"translated\">ES $2</target>",
            options: .regularExpression)
        let (status, body) = upload("church-security.xlf", Array(translated.utf8))
        #expect(status == 200, "\(body)")
        #expect(body["destination"]?.stringValue == "trex/l10n/es/guides/church-security.xlf")
        #expect(fixture.read("l10n/es/guides/church-security.xlf") == Array(translated.utf8))
        // The next read has the new file's strings, before any build.
        let read = fixture.json(fixture.send("GET", "/api/sites/trex/l10n/es/pages/guides/church-security"))
        let imported = read.body["strings"]?.arrayValue ?? []
        #expect(!imported.isEmpty && imported.allSatisfy { $0["translation"]?.stringValue?.hasPrefix("ES ") == true }, "\(imported)")

        // A target without the source's link: refused at its line and column, nothing replaced.
        let broken = translated.replacingOccurrences(
            of: #"(?s)(<trans-unit id="intro.body"(?:(?!</trans-unit>).)*?<target state="translated">)(?:(?!</target>).)*</target>"#,
            with: "$1Sin enlace</target>", options: .regularExpression)
        #expect(broken != translated)
        let refused = upload("church-security.xlf", Array(broken.utf8))
        #expect(refused.status == 422)
        let diagnostic = refused.body["diagnostics"]?.arrayValue?.first { $0["severity"]?.stringValue == "error" }
        #expect(diagnostic?["file"]?.stringValue == "church-security.xlf")
        #expect(
            (diagnostic?["line"]?.intValue ?? 0) > 1 && diagnostic?["message"]?.stringValue?.contains("link") == true, "\(refused.body)")
        #expect(fixture.read("l10n/es/guides/church-security.xlf") == Array(translated.utf8))
    }

    @Test func aBadNameOrLocaleIsRefused() {
        let before = fixture.snapshot()
        #expect(upload("..%2Fsite.yaml", Array("x: y\n".utf8)).status == 400)
        #expect(upload("site.txt", Array("x".utf8)).status == 400)
        #expect(upload("church-security.xlf", Array("x".utf8), locale: "en").status == 404)
        #expect(upload("church-security.xlf", Array("<xliff".utf8)).status == 422)
        #expect(fixture.snapshot() == before)
    }
}
