import Foundation
import Testing

@testable import QuireCore

/// deploy/nginx.conf is `NginxRules.production`'s text, so what `quire watch --serve` runs and what
/// production runs cannot drift apart. Run with `QUIRE_RECORD_DEPLOY=1` to write the file again
/// after a deliberate change of the rules.
@Suite struct NginxRulesTests {
    static let deployFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/nginx.conf").path

    @Test func deployFileIsTheProductionRules() throws {
        let text = NginxRules.production.text
        if ProcessInfo.processInfo.environment["QUIRE_RECORD_DEPLOY"] == "1" {
            try text.write(toFile: Self.deployFile, atomically: true, encoding: .utf8)
        }
        let file = try String(contentsOfFile: Self.deployFile, encoding: .utf8)
        #expect(file == text, "deploy/nginx.conf differs from NginxRules.production (QUIRE_RECORD_DEPLOY=1 writes it)")
    }

    @Test func withoutAnAuthServiceVariantsAreRefused() {
        var rules = NginxRules.production
        rules.auth = nil
        #expect(!rules.text.contains("auth_request"))
        #expect(!rules.text.contains("upstream"))
        #expect(
            rules.text.contains(
                #"@([a-z0-9_-]+)\.json$" { set $quire_cache_control ""; set $quire_csp "default-src 'none'; sandbox"; return 404; }"#))
        #expect(NginxRules.production.text.contains("auth_request /_quire_auth;"))
    }

    @Test func authServiceQueryKeepsItsOwnParameters() {
        var rules = NginxRules.production
        rules.auth = NginxRules.AuthService(scheme: "https", server: "auth.example:443", path: "/check?app=news")
        #expect(rules.text.contains("proxy_pass https://quire_auth/check?app=news&audience=$quire_audience;"))
        #expect(rules.text.contains("server auth.example:443;"))
        #expect(rules.text.contains("proxy_set_header Host auth.example:443;"))
    }

    @Test func pathsAreQuotedOrRefused() {
        let rules = NginxRules(dist: "/srv/my dist", publicListen: "127.0.0.1:1", editorsListen: "127.0.0.1:2", auth: nil)
        #expect(rules.text.contains("root \"/srv/my dist\";"))
        #expect(rules.text.contains("include \"/srv/my dist/*/current/http/nginx-ttl.map\";"))
        #expect(NginxRules.unservablePathCharacter("/srv/$dist") == "$")
        #expect(NginxRules.unservablePathCharacter("/srv/a;b") == ";")
        #expect(NginxRules.unservablePathCharacter("/srv/quire/dist-2") == nil)
    }

    @Test func standaloneConfigurationKeepsNginxFilesInItsFolder() {
        let text = NginxRules.production.standalone(folder: "/tmp/q", user: (name: "root", group: "root"))
        #expect(text.contains("daemon off;\nuser root root;\nworker_processes 1;\npid /tmp/q/nginx.pid;"))
        for temporary in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"] {
            #expect(text.contains("\(temporary)_temp_path /tmp/q/\(temporary);"))
        }
        #expect(text.contains(NginxRules.production.text))
        #expect(!NginxRules.production.standalone(folder: "/tmp/q", user: nil).contains("\nuser "))
    }

    @Test func listenAddresses() {
        #expect(ListenAddress("8080") == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(ListenAddress("0.0.0.0:80")?.url == "http://127.0.0.1:80")
        #expect(ListenAddress("[::1]:8080")?.description == "[::1]:8080")
        #expect(ListenAddress("[::1]:8080")?.url == "http://[::1]:8080")
        #expect(ListenAddress("localhost:9000")?.description == "localhost:9000")
        for loopback in ["8080", "127.0.0.1:1", "127.1.2.3:1", "[::1]:1", "localhost:1"] {
            #expect(ListenAddress(loopback)?.isLoopback == true, "\(loopback)")
        }
        for reachable in ["0.0.0.0:1", "[::]:1", "10.0.0.1:1", "127.evil.example:1", "example.com:1"] {
            #expect(ListenAddress(reachable)?.isLoopback == false, "\(reachable)")
        }
        for wrong in ["", "x", "65535", "0", "host:", ":80", "a b:80", "80/", "８０"] {
            #expect(ListenAddress(wrong) == nil, "\(wrong)")
        }
    }
}

/// nginx itself reads the configuration `quire watch --serve` writes, with the TTL map of a
/// 10,000-page site in 3 locales (long keys, many of them): accepted, and without a warning.
@Suite struct NginxRulesLoadTests {
    static let nginx = NginxProcess.locate()

    @Test(.enabled(if: nginx != nil, "nginx is not installed (scripts/ensure-packages test)"))
    func nginxLoadsTheRulesAndALargeTTLMap() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-nginx-rules-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: "\(folder)/dist/big/current/http", withIntermediateDirectories: true)
        var map = ""
        for page in 0..<10_000 {
            for locale in ["en", "fr", "de-CH"] {
                map += "\"/big/current/\(locale)/section-\(page / 100)/a-longer-folder-name/page-number-\(page).json\" 60;\n"
            }
        }
        try map.write(toFile: "\(folder)/dist/big/current/http/nginx-ttl.map", atomically: true, encoding: .utf8)
        let rules = NginxRules(
            dist: "\(folder)/dist", publicListen: "127.0.0.1:1", editorsListen: "127.0.0.1:2",
            auth: NginxRules.AuthService(scheme: "http", server: "localhost:9", path: "/auth"))
        try rules.standalone(folder: folder, user: nil).write(toFile: "\(folder)/nginx.conf", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.nginx))
        process.arguments = ["-t", "-q", "-e", "stderr", "-c", "\(folder)/nginx.conf"]
        let output = Pipe()
        process.standardError = output
        try process.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "nginx -t: \(said)")
        #expect(said.isEmpty, "nginx -t said: \(said)")
    }
}
