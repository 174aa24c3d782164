import Foundation
import QuireCore
import QuireDashboard
import QuireModel
import Synchronization
import Testing

/// The service's routes, answered as nginx would ask them, on a copy of the sample site.
struct DashboardServiceTests {
    let fixture: DashboardFixture
    init() throws { fixture = try DashboardFixture() }

    @Test func sessionGivesARandomToken() throws {
        let (status, body) = fixture.json(fixture.send("GET", "/api/session", user: "alice"))
        #expect(status == 200)
        let token = try #require(body["token"]?.stringValue)
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
        #expect(body["user"]?.stringValue == "alice")
        #expect(body["sites"] == ["trex"])
        #expect(try DashboardFixture().token != token)
    }

    @Test func readsAPageWithItsBaseAndDiagnostics() throws {
        let (status, body) = fixture.json(fixture.send("GET", "/api/sites/trex/pages/trex-store"))
        #expect(status == 200)
        let bytes = try #require(fixture.read("trex-store.yaml"))
        #expect(body["text"]?.stringValue == String(decoding: bytes, as: UTF8.self))
        #expect(body["base"]?.stringValue == SHA256.hash(bytes))
        #expect(body["format"]?.stringValue == "yaml")
        #expect(body["has_comments"]?.boolValue == true)
        #expect(body["document"]?["sections"]?.arrayValue?.isEmpty == false)
        #expect(body["diagnostics"]?.arrayValue?.contains { $0["severity"]?.stringValue == "error" } == false)
    }

    @Test func aTextSaveWritesTheTextByteForByte() throws {
        let page = fixture.json(fixture.send("GET", "/api/sites/trex/pages/guides/range-safety")).body
        let text = try #require(page["text"]?.stringValue).replacingOccurrences(of: "Range", with: "Rånge") + "# a comment\n"
        let (status, body) = fixture.json(
            fixture.send("PUT", "/api/sites/trex/pages/guides/range-safety", json: ["base": page["base"]!, "text": .string(text)]))
        #expect(status == 200)
        #expect(fixture.read("guides/range-safety.yaml") == Array(text.utf8))
        #expect(body["base"]?.stringValue == SHA256.hash(Array(text.utf8)))
        #expect(body["save_id"]?.stringValue?.isEmpty == false)
        // No temporary file is left beside it.
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.site + "/guides")
        #expect(names.sorted() == ["church-security.json", "range-safety.yaml"])
    }

    @Test func aStaleSaveIsRefusedWithBothTexts() throws {
        let page = fixture.json(fixture.send("GET", "/api/sites/trex/pages/trex-store")).body
        let other = "title: changed in a text editor\nsections: []\n"
        try other.write(toFile: fixture.site + "/trex-store.yaml", atomically: true, encoding: .utf8)
        let (status, body) = fixture.json(
            fixture.send("PUT", "/api/sites/trex/pages/trex-store", json: ["base": page["base"]!, "text": "title: mine\nsections: []\n"]))
        #expect(status == 409)
        #expect(body["conflict"]?.boolValue == true)
        #expect(body["disk_text"]?.stringValue == other)
        #expect(body["your_text"]?.stringValue == "title: mine\nsections: []\n")
        #expect(fixture.read("trex-store.yaml") == Array(other.utf8))
    }

    @Test func aFormSaveOfAFileWithCommentsAsksFirst() throws {
        let page = fixture.json(fixture.send("GET", "/api/sites/trex/pages/trex-store")).body
        guard case .object(var document) = page["document"] else {
            Issue.record("no document")
            return
        }
        document["title"] = "New store title"
        let before = fixture.read("trex-store.yaml")
        let refused = fixture.json(
            fixture.send("PUT", "/api/sites/trex/pages/trex-store", json: ["base": page["base"]!, "document": .object(document)]))
        #expect(refused.status == 409)
        #expect(refused.body["comments"]?.boolValue == true)
        #expect(fixture.read("trex-store.yaml") == before)

        let saved = fixture.json(
            fixture.send(
                "PUT", "/api/sites/trex/pages/trex-store",
                json: ["base": page["base"]!, "document": .object(document), "drop_comments": true]))
        #expect(saved.status == 200)
        let written = try #require(fixture.read("trex-store.yaml"))
        let reread = try SourceParser.parse(written, format: .yaml, file: "trex-store.yaml")
        #expect(reread.json == .object(document))
    }

    @Test func aFormSaveOfJSONWritesJSON() throws {
        let page = fixture.json(fixture.send("GET", "/api/sites/trex/pages/guides/church-security")).body
        guard case .object(var document) = page["document"] else {
            Issue.record("no document")
            return
        }
        document["title"] = "Church security, revised"
        let saved = fixture.json(
            fixture.send(
                "PUT", "/api/sites/trex/pages/guides/church-security", json: ["base": page["base"]!, "document": .object(document)]))
        #expect(saved.status == 200)
        let written = try #require(fixture.read("guides/church-security.json"))
        #expect(written == JSONWriter(pretty: true).bytes(.object(document)))
    }

    @Test func aCheckRendersTheDraftAndPlacesItsErrors() throws {
        let page = fixture.json(fixture.send("GET", "/api/sites/trex/pages/trex-store")).body
        let text = try #require(page["text"]?.stringValue)
        let renamed = text.replacingOccurrences(of: "title: Training Essentials", with: "title: Range Day Essentials")
        let good = fixture.json(fixture.send("POST", "/api/sites/trex/check", json: ["id": "trex-store", "text": .string(renamed)]))
        #expect(good.status == 200)
        let hero = good.body["rendered"]?["en"]?["page"]?["sections"]?.arrayValue?.first
        #expect(hero?["title"]?.stringValue == "Range Day Essentials")
        #expect(good.body["rendered"]?.objectValue?.keys.sorted() == ["en", "es", "fr", "fr-CA"])
        #expect(good.body["document"]?["sections"]?.arrayValue?.first?["title"]?.stringValue == "Range Day Essentials")
        // The hero's title changed: its translations are stale now, so no locale translates every string.
        let coverage = good.body["coverage"]?.objectValue
        #expect(coverage?.keys.sorted() == ["es", "fr", "fr-CA"])
        #expect(coverage?.members.allSatisfy { member in member.value.intValue != 1 } == true)
        #expect(good.body["rendered"]?["en"]?["audiences"]?.objectValue?.keys.contains("pro") == true)

        // The hero's required title removed: an error at its key path and line.
        let broken = text.replacingOccurrences(of: "    title: Training Essentials\n", with: "")
        let bad = fixture.json(fixture.send("POST", "/api/sites/trex/check", json: ["id": "trex-store", "text": .string(broken)]))
        let errors = bad.body["diagnostics"]?.arrayValue?.filter { $0["severity"]?.stringValue == "error" } ?? []
        #expect(
            errors.contains {
                $0["key_path"]?.stringValue?.hasPrefix("sections[0]") == true && $0["line"]?.intValue == 5 && $0["column"]?.intValue == 5
            },
            "\(errors)")
        #expect(bad.body["rendered"]?.objectValue?.isEmpty == true)
        // Nothing was written.
        #expect(fixture.read("trex-store.yaml") == Array(text.utf8))
    }

    @Test func aCheckOfADocumentReturnsTheTextASaveWouldWrite() throws {
        let document: JSONValue = [
            "title": "Draft", "sections": [["type": "markdown_block", "id": "body", "body": "# Hello\n\nSome *text*.\n"]],
        ]
        let (status, body) = fixture.json(
            fixture.send("POST", "/api/sites/trex/check", json: ["id": "new-page", "document": document, "format": "yaml"]))
        #expect(status == 200)
        let text = try #require(body["text"]?.stringValue)
        #expect(try SourceParser.parse(Array(text.utf8), format: .yaml, file: "x").json == document)
        let section = body["rendered"]?["en"]?["page"]?["sections"]?.arrayValue?.first
        #expect(section?["body_html"]?.stringValue?.contains("<em>text</em>") == true)
    }

    @Test func aPageCardsFieldsAndTagsAreFormFields() throws {
        let envelope = fixture.json(fixture.send("GET", "/api/sites/trex/schema")).body["envelope"]?.arrayValue ?? []
        let kinds = Dictionary(envelope.compactMap { field in field["name"]?.stringValue.map { ($0, field["kind"]?.stringValue) } }) { $1 }
        #expect(kinds["summary"] == "text" && kinds["image_url"] == "text" && kinds["tags"] == "id_list")
        // A form save with tags: written as a list, read back without a warning of an unknown key.
        let page = fixture.json(fixture.send("GET", "/api/sites/trex/pages/guides/church-security")).body
        guard case .object(var document) = page["document"] else {
            Issue.record("no document")
            return
        }
        document["tags"] = ["guide", "safety"]
        document["summary"] = "Keeping a congregation safe"
        let saved = fixture.json(
            fixture.send(
                "PUT", "/api/sites/trex/pages/guides/church-security", json: ["base": page["base"]!, "document": .object(document)]))
        #expect(saved.status == 200)
        let reread = fixture.json(fixture.send("GET", "/api/sites/trex/pages/guides/church-security")).body
        #expect(reread["document"]?["tags"] == ["guide", "safety"])
        #expect(reread["diagnostics"]?.arrayValue?.contains { $0["key_path"]?.stringValue?.hasPrefix("tags") == true } == false)
        // A tag that is not an identifier: an error at its key path, nothing written.
        document["tags"] = ["guide", "Range Day"]
        let checked = fixture.json(
            fixture.send("POST", "/api/sites/trex/check", json: ["id": "guides/church-security", "document": .object(document)]))
        let errors = checked.body["diagnostics"]?.arrayValue?.filter { $0["severity"]?.stringValue == "error" } ?? []
        #expect(errors.contains { $0["key_path"]?.stringValue == "tags[1]" }, "\(errors)")
    }

    @Test func theSchemaIsTheRegistry() throws {
        let (status, body) = fixture.json(fixture.send("GET", "/api/sites/trex/schema"))
        #expect(status == 200)
        let types = body["types"]?.arrayValue ?? []
        #expect(types.compactMap { $0["name"]?.stringValue } == Vocabulary.builtIn.types.map(\.name))
        for (type, spec) in zip(types, Vocabulary.builtIn.types) {
            #expect(type["fields"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == spec.fields.map(\.name))
            #expect(type["fields"]?.arrayValue?.compactMap { $0["required"]?.boolValue } == spec.fields.map(\.required))
        }
        #expect(body["audiences"] == ["member", "instructor", "pro"])
        #expect(body["assets"]?.arrayValue?.contains("/assets/trex-banner.jpg") == true)
        #expect(Set(PageEnvelope.sectionFields.map(\.name)) == Vocabulary.commonSectionKeys.subtracting(["type"]))
    }

    @Test func aSiteVocabularyTypeIsInTheSchema() throws {
        try "types:\n  quote_card:\n    summary: A quote.\n    fields:\n      quote: { kind: text, required: true }\n"
            .write(toFile: fixture.site + "/vocabulary.yaml", atomically: true, encoding: .utf8)
        let body = fixture.json(fixture.send("GET", "/api/sites/trex/schema")).body
        let quote = body["types"]?.arrayValue?.first { $0["name"]?.stringValue == "quote_card" }
        #expect(quote?["fields"]?.arrayValue?.first?["kind"]?.stringValue == "text")
    }

    @Test func pagesAreListedWithTheirState() throws {
        let (status, body) = fixture.json(fixture.send("GET", "/api/sites/trex/pages"))
        #expect(status == 200)
        let pages = body.arrayValue ?? []
        #expect(pages.compactMap { $0["id"]?.stringValue } == ["guides/church-security", "guides/range-safety", "trex-store"])
        #expect(pages.last?["title"]?.stringValue == "T.REX ARMS Store")
        #expect(pages.last?["format"]?.stringValue == "yaml")
        #expect(pages.allSatisfy { $0["state"]?.stringValue == "live" })
    }

    @Test func aNewPageIsCreatedOnceAndDeletedWithItsBase() throws {
        let created = fixture.json(
            fixture.send("POST", "/api/sites/trex/pages", json: ["id": "events/spring", "format": "yaml", "sections": ["hero_banner"]]))
        #expect(created.status == 201)
        let bytes = try #require(fixture.read("events/spring.yaml"))
        #expect(created.body["base"]?.stringValue == SHA256.hash(bytes))
        #expect(fixture.send("POST", "/api/sites/trex/pages", json: ["id": "events/spring"]).status.code == 409)
        #expect(fixture.send("POST", "/api/sites/trex/pages", json: ["id": "Events"]).status.code == 400)
        #expect(fixture.send("POST", "/api/sites/trex/pages", json: ["id": "x", "sections": ["no_such_type"]]).status.code == 400)

        let copy = fixture.json(fixture.send("POST", "/api/sites/trex/pages", json: ["id": "store-copy", "copy_of": "trex-store"]))
        #expect(copy.status == 201)
        let copied = try SourceParser.parse(try #require(fixture.read("store-copy.yaml")), format: .yaml, file: "x").json
        #expect(copied["page_id"]?.stringValue == "store-copy")
        #expect(copied["sections"] != nil)

        #expect(fixture.send("DELETE", "/api/sites/trex/pages/events/spring?base=\(String(repeating: "0", count: 64))").status.code == 409)
        #expect(fixture.read("events/spring.yaml") != nil)
        #expect(fixture.send("DELETE", "/api/sites/trex/pages/events/spring?base=\(SHA256.hash(bytes))").status.code == 200)
        #expect(fixture.read("events/spring.yaml") == nil)
    }

    /// Each create updates the site's kept scan; done side by side, no update may drop another's
    /// page from the list (as a read-modify-write of the scan without one lock over it did).
    @Test func pagesCreatedSideBySideAreAllListed() throws {
        #expect(fixture.json(fixture.send("GET", "/api/sites/trex/pages")).status == 200)
        let fixture = self.fixture
        let token = fixture.token
        let ids = (0..<64).map { "batch/page-\($0)" }
        let statuses = Mutex([Int]())
        DispatchQueue.concurrentPerform(iterations: ids.count) { index in
            let status = fixture.send("POST", "/api/sites/trex/pages", json: ["id": .string(ids[index])], token: token).status.code
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.withLock { $0 } == Array(repeating: 201, count: ids.count))
        let listed = Set(
            (fixture.json(fixture.send("GET", "/api/sites/trex/pages")).body.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
        #expect(Set(ids).subtracting(listed).isEmpty)
    }

    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 32)

    @Test func anImageIsTypedFromItsBytes() throws {
        let uploaded = fixture.json(fixture.send("POST", "/api/sites/trex/assets?name=badge.png", body: Self.png))
        #expect(uploaded.status == 201)
        #expect(fixture.read("assets/badge.png") == Self.png)
        #expect(fixture.send("POST", "/api/sites/trex/assets?name=badge.png", body: Self.png).status.code == 409)
        #expect(fixture.send("POST", "/api/sites/trex/assets?name=other.jpg", body: Self.png).status.code == 400)
        let svg = Array("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".utf8)
        #expect(fixture.send("POST", "/api/sites/trex/assets?name=evil.png", body: svg).status.code == 415)
        #expect(fixture.read("assets/evil.png") == nil)
        fixture.service.maxAssetBytes = 16
        #expect(fixture.send("POST", "/api/sites/trex/assets?name=big.png", body: Self.png).status.code == 413)
        let listed = fixture.json(fixture.send("GET", "/api/sites/trex/assets")).body.arrayValue ?? []
        #expect(listed.contains { $0["path"]?.stringValue == "/assets/badge.png" && $0["type"]?.stringValue == "image/png" })
    }

    @Test func theDashboardIsServedWithItsPolicy() {
        let response = fixture.send("GET", "/dashboard/")
        #expect(response.status.code == 200)
        let headers = Dictionary(response.headers.map { ($0.name, $0.value) }) { $1 }
        #expect(headers["Content-Security-Policy"]?.contains("require-trusted-types-for 'script'") == true)
        #expect(String(decoding: response.bytes, as: UTF8.self).contains("X-Content-Type-Options: nosniff\r\n"))
        #expect(fixture.send("GET", "/dashboard/nothing.js").status.code == 404)
        let script = fixture.send("GET", "/dashboard/preview.js")
        #expect(script.body == PagePreview.script)
        #expect(script.headers.contains { $0.name == "Content-Type" && $0.value.hasPrefix("text/javascript") })
    }

    @Test func theEmbeddedFilesAreTheWebFolder() throws {
        let folder = DashboardFixture.repository + "/Sources/QuireDashboard/Web"
        let names = try FileManager.default.subpathsOfDirectory(atPath: folder).filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder + "/" + $0, isDirectory: &isFolder) && !isFolder.boolValue
        }
        for name in names {
            let served = fixture.send("GET", "/dashboard/" + name)
            #expect(served.status.code == 200, "Web/\(name) is not served: add it to StaticFiles.files")
            #expect(served.body == Array(FileManager.default.contents(atPath: folder + "/" + name) ?? Data()))
        }
    }
}

/// site.yaml's `dashboard:` roles, by the groups the editors' sign-in names.
struct DashboardRolesTests {
    @Test func onlyEditorsAndOpsChangeASiteThatNamesThem() throws {
        let fixture = try DashboardFixture()
        let siteFile = fixture.site + "/site.yaml"
        try
            (String(contentsOfFile: siteFile, encoding: .utf8)
            + "dashboard:\n  editors: [writers]\n  ops: [sre]\n  translators: [fr-team]\n")
            .write(toFile: siteFile, atomically: true, encoding: .utf8)
        let page = fixture.json(fixture.send("GET", "/api/sites/trex/pages/guides/range-safety")).body
        let save = JSONWriter(pretty: false).bytes(["base": page["base"]!, "text": "title: x\nsections: []\n"])
        let before = fixture.snapshot()
        func send(_ groups: String?, _ method: String = "PUT", _ uri: String = "/api/sites/trex/pages/guides/range-safety") -> HTTPResponse
        {
            fixture.send(method, uri, body: save, user: groups == nil ? nil : "alice", more: groups.map { ["QUIRE_GROUPS": $0] } ?? [:])
        }
        let refused = send("fr-team, readers")
        #expect(refused.status.code == 403)
        #expect(fixture.json(refused).body["error"]?.stringValue?.contains("alice may not change trex") == true)
        #expect(send("").status.code == 403)
        #expect(send("fr-team", "POST", "/api/sites/trex/assets?name=x.png").status.code == 403)
        #expect(fixture.snapshot() == before)
        // A translator still checks and previews drafts.
        let check = JSONWriter(pretty: false).bytes(["id": "guides/range-safety", "text": "title: x\nsections: []\n"])
        #expect(
            fixture.send("POST", "/api/sites/trex/check", body: check, user: "alice", more: ["QUIRE_GROUPS": "fr-team"]).status.code == 200)
        let session = fixture.json(fixture.send("GET", "/api/session", user: "alice", more: ["QUIRE_GROUPS": "fr-team"])).body
        #expect(session["editable"] == [])
        // Ops roll back and collect versions; editing pages is the editors' (issue 51).
        #expect(send("readers,sre").status.code == 403)
        #expect(send("readers,writers").status.code == 200)
        // The local user (no sign-in) may do everything.
        let again = fixture.json(fixture.send("GET", "/api/sites/trex/pages/guides/range-safety")).body
        let local = fixture.send("PUT", "/api/sites/trex/pages/guides/range-safety", json: ["base": again["base"]!, "text": "title: y\n"])
        #expect(local.status.code == 200)
    }

    @Test func aSiteWithoutRolesIsEveryEditorsAndABrokenOneNobodys() throws {
        let open = try DashboardFixture()
        let session = open.json(open.send("GET", "/api/session", user: "bob", more: ["QUIRE_GROUPS": "anyone"])).body
        #expect(session["editable"] == ["trex"])
        // site.yaml with errors names no roles: a signed-in user changes nothing until it is fixed.
        let broken = try DashboardFixture()
        try "default_locale: [not, text]\n".write(toFile: broken.site + "/site.yaml", atomically: true, encoding: .utf8)
        let refused = broken.json(broken.send("GET", "/api/session", user: "bob", more: ["QUIRE_GROUPS": "anyone"])).body
        #expect(refused["editable"] == [])
        #expect(broken.json(broken.send("GET", "/api/session")).body["editable"] == ["trex"])
    }
}
