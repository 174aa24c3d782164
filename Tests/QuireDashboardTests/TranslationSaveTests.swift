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
    }
}
