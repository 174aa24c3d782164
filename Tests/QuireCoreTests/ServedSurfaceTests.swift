import Foundation
import Testing

@testable import QuireCore

/// The checks that keep what nginx reads and serves built from checked values: site folder names,
/// the TTL map's quoting, assets typed from their bytes, the editors' gate in the rules.
@Suite struct ServedSurfaceTests {
    @Test func siteFoldersThatBreakTheIDRuleAreReportedAndLeftOut() throws {
        let pages = FileManager.default.temporaryDirectory.appendingPathComponent("quire-sites-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: pages) }
        let hostile = "z\" 1; ~. \"1\r\nSet-Cookie: injected=1\"; \"q"
        for name in ["trex", "springfield-pd", hostile, "a}b", "Upper", ".git", "notes~"] {
            try FileManager.default.createDirectory(atPath: "\(pages)/\(name)", withIntermediateDirectories: true)
        }
        FileManager.default.createFile(atPath: "\(pages)/README.md", contents: Data())
        let folders = SiteFolders(pages: pages)
        #expect(folders.names == ["springfield-pd", "trex"])
        #expect(Set(folders.refusedNames) == [hostile, "a}b", "Upper"])
        let printed = folders.refused.map(\.description).joined(separator: "\n")
        #expect(!printed.contains("\r\n"), "a control character reached a diagnostic: \(printed)")
        #expect(printed.contains(#"\r\n"#))
        #expect(folders.refused.allSatisfy { $0.isError && $0.message.contains("is not a site name") })
    }

    @Test func mapKeysAreQuotedSoNoValueEndsTheString() {
        #expect(NginxQuoting.quoted("/trex/current/en/a.json") == "\"/trex/current/en/a.json\"")
        #expect(NginxQuoting.quoted(#"a"; b \ c"#) == #""a\"; b \\ c""#)
    }

    @Test(
        arguments: [
            ("a.jpg", [0xFF, 0xD8, 0xFF, 0xE0, 1], nil),
            ("a.JPEG", [0xFF, 0xD8, 0xFF, 0xDB], nil),
            ("a.png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0], nil),
            ("a.gif", Array("GIF89a..".utf8), nil),
            ("a.webp", Array("RIFF\0\0\0\0WEBPVP8 ".utf8), nil),
            ("a.avif", Array("\0\0\0\u{1C}ftypavif".utf8), nil),
            ("a.mp4", Array("\0\0\0\u{18}ftypisom".utf8), nil),
            ("a.webm", [0x1A, 0x45, 0xDF, 0xA3, 0x9F], nil),
            ("a.pdf", Array("%PDF-1.7".utf8), nil),
            ("a.woff2", Array("wOF2....".utf8), nil),
            (
                "a.svg",
                Array("\u{FEFF}<?xml version=\"1.0\"?>\n<!-- x -->\n<!DOCTYPE svg>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8), nil
            ),
            ("a.png", Array("<html><script>alert(1)</script>".utf8), "is not image/png"),
            ("a.png", [0xFF, 0xD8, 0xFF, 0xE0], "holds image/jpeg but is named .png: rename it .jpg"),
            ("a.svg", Array("<html><svg></svg></html>".utf8), "is not image/svg+xml"),
            ("a.avif", Array("\0\0\0\u{18}ftypisom".utf8), "holds video/mp4"),
            ("a.html", Array("<svg/>".utf8), "not a media file"),
            ("a", [0xFF, 0xD8, 0xFF], "not a media file"),
            ("a.js", Array("alert(1)".utf8), "not a media file"),
        ] as [(String, [UInt8], String?)])
    func assetsAreTypedFromTheirBytes(name: String, bytes: [UInt8], problem: String?) {
        let found = MediaType.problem(name: name, bytes: bytes)
        if let problem {
            #expect(found?.contains(problem) == true, "\(name): \(found ?? "accepted")")
        } else {
            #expect(found == nil, "\(name): \(found ?? "")")
        }
    }

    @Test func everyMediaTypeIsServedWithItsType() {
        let text = NginxRules.production.text
        for type in MediaType.all {
            #expect(text.contains("\(type.mime) \(type.extensions.joined(separator: " "));"), "\(type.mime)")
        }
        #expect(!text.contains("autoindex on"))
        #expect(text.contains("disable_symlinks if_not_owner from=$document_root;"))
        #expect(text.contains("server_tokens off;") && text.contains("absolute_redirect off;"))
    }

    @Test func theEditorsSignInGatesEveryRequestAndNamesTheUser() {
        var rules = NginxRules.production
        #expect(!rules.text.contains("_quire_editors_auth"))
        rules.editorsAuth = NginxRules.EditorsAuth(
            service: NginxRules.AuthService(scheme: "http", server: "127.0.0.1:4180", path: "/oauth2/auth"), userHeader: "X-Forwarded-User")
        let text = rules.text
        #expect(text.contains("auth_request /_quire_editors_auth;"))
        #expect(text.contains("auth_request_set $quire_user $upstream_http_x_forwarded_user;"))
        #expect(text.contains("auth_request_set $quire_groups $upstream_http_x_auth_request_groups;"))
        #expect(text.contains("proxy_pass http://quire_editors_auth/oauth2/auth;"))
        #expect(NginxRules.EditorsAuth.isHeaderName("X-Auth-Request-User"))
        for wrong in ["", "X User", "X;User", "X-User$", "Ü"] { #expect(!NginxRules.EditorsAuth.isHeaderName(wrong), "\(wrong)") }
    }
}
