import Foundation
import Testing

/// The `quire` binary as users and CI run it: exit codes (README.md, "The two commands"), diagnostics on stderr,
/// data on stdout, and the ops commands on a real `dist/`.
@Suite(.serialized) struct CommandLineTests {
    @Test func checkReportsContentErrorsWithExitCode1AndPositions() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        try workspace.write(
            "pages/shop/broken.yaml", "sections:\n  - type: cta_button\n    label: Go\n    action: navgate\n    destination: /drills\n")
        let run = try workspace.quire(["check"])
        #expect(run.status == 1)
        #expect(
            run.stderr.contains(
                "pages/shop/broken.yaml:4:13: error: sections[0].action: must be one of navigate, external; found 'navgate'"),
            "\(run.stderr)")
        #expect(!workspace.exists("dist"), "check publishes nothing")

        let json = try workspace.quire(["check", "--format", "json"])
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let site = try #require((object["sites"] as? [[String: Any]])?.first)
        let diagnostics = try #require(site["diagnostics"] as? [[String: Any]])
        #expect(
            diagnostics.contains { ($0["line"] as? Int) == 4 && ($0["column"] as? Int) == 13 && ($0["severity"] as? String) == "error" })
    }

    @Test func usageErrorsExitWith2() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        #expect(try workspace.quire(["frobnicate"]).status == 2)
        #expect(try workspace.quire(["build", "--format", "xml"]).status == 2)
        #expect(try workspace.quire(["rollback", "--dist", workspace.dist]).status == 2, "rollback needs --site")
    }

    @Test func buildNamesThePagesThatCameOrWent() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        let dist = ["--dist", workspace.dist]
        #expect(try workspace.quire(["build"] + dist).status == 0)
        try workspace.write("pages/shop/extra.yaml", "title: Extra\nsections:\n  - type: divider\n")
        let added = try workspace.quire(["build", "--format", "json"] + dist)
        #expect(added.stderr.contains("shop: published v000002, 1 page added, 1 page rebuilt"), "\(added.stderr)")
        let sites = try #require(
            (try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])?["sites"] as? [[String: Any]])
        #expect(sites.first?["pages_added"] as? [String] == ["extra"])
        #expect(sites.first?["pages_removed"] as? [String] == [])
        try FileManager.default.removeItem(atPath: workspace.path("pages/shop/extra.yaml"))
        let removed = try workspace.quire(["build"] + dist)
        #expect(removed.stderr.contains("shop: published v000003, 1 page removed, 0 pages rebuilt"), "\(removed.stderr)")
    }

    /// With `keep:`, a build's publish and its retention share one take of the publish lock: the
    /// steps it reaches (`QUIRE_STEP_LOG`) hold one `recover`, the one each lock starts with, and
    /// the gc marks after the swap.
    @Test func retentionRunsInThePublishLock() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        let dist = ["--dist", workspace.dist]
        try workspace.write("pages/shop/site.yaml", try workspace.read("pages/shop/site.yaml") + "keep: 1\n")
        #expect(try workspace.quire(["build"] + dist).status == 0)
        let store = try workspace.read("pages/shop/store.yaml")
        try workspace.write(
            "pages/shop/store.yaml",
            store.replacingOccurrences(of: "title: ", with: "title: New ", options: [], range: store.range(of: "title: ")))
        let second = try workspace.quire(["build"] + dist, environment: ["QUIRE_STEP_LOG": workspace.path("steps.log")])
        #expect(second.status == 0, "\(second.stderr)")
        let steps = try workspace.read("steps.log").split(separator: "\n")
        #expect(steps.filter { $0 == "recover" }.count == 1, "\(steps)")
        let swap = try #require(steps.firstIndex(of: "swap"), "\(steps)")
        let mark = try #require(steps.firstIndex(of: "mark"), "\(steps)")
        #expect(swap < mark)
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path("dist/shop/versions")) == ["v000002"])
    }

    @Test func buildRollbackUnpinVerifyAndVersions() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        let dist = ["--dist", workspace.dist]
        let first = try workspace.quire(["build", "--timings"] + dist)
        #expect(first.status == 0)
        // Every page is parsed and published: both stages took time and are listed.
        let stages = try #require(first.stderr.split(separator: "\n").first { $0.contains("shop: stages (ms): ") }, "\(first.stderr)")
        #expect(stages.contains("parse ") && stages.contains("publish "), "\(stages)")
        let store = try workspace.read("pages/shop/store.yaml")
        try workspace.write(
            "pages/shop/store.yaml",
            store.replacingOccurrences(of: "title: ", with: "title: New ", options: [], range: store.range(of: "title: ")))
        let second = try workspace.quire(["build"] + dist)
        #expect(second.status == 0)
        #expect(second.stderr.contains("published v000002"), "\(second.stderr)")

        let rollback = try workspace.quire(["rollback", "--site", "shop", "--reason", "bad title"] + dist)
        #expect(rollback.status == 0, "\(rollback.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: workspace.path("dist/shop/current")) == "versions/v000001")

        let versions = try workspace.quire(["versions", "--site", "shop", "--format", "json"] + dist)
        let listed = try #require(
            (try JSONSerialization.jsonObject(with: Data(versions.stdout.utf8)) as? [String: Any])?["versions"] as? [[String: Any]])
        #expect(listed.count == 2)
        #expect(listed.first { ($0["id"] as? String) == "v000001" }?["pinned"] as? Bool == true)
        #expect(try workspace.read("dist/shop/state/history.jsonl").contains("bad title"))

        // While pinned, a build makes a new version but current stays.
        try workspace.write("pages/shop/store.yaml", store)
        let pinned = try workspace.quire(["build"] + dist)
        #expect(pinned.stderr.contains("site pinned: current unchanged"), "\(pinned.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: workspace.path("dist/shop/current")) == "versions/v000001")

        #expect(try workspace.quire(["unpin", "--site", "shop"] + dist).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: workspace.path("dist/shop/current")) == "versions/v000003")
        #expect(try workspace.quire(["verify", "--site", "shop"] + dist).status == 0)

        // Damage a published file: verify finds it and exits 1.
        let page = try #require(
            try FileManager.default.contentsOfDirectory(atPath: workspace.path("dist/shop/current/en")).first { $0.hasSuffix(".json") })
        let resolved = workspace.path("dist/shop/current/en/\(page)")
        try Data("{}".utf8).write(to: URL(fileURLWithPath: resolved))
        let damaged = try workspace.quire(["verify", "--site", "shop"] + dist)
        #expect(damaged.status == 1)
        #expect(damaged.stderr.contains("en/\(page)"), "\(damaged.stderr)")
    }
}
