import Foundation
import QuireTestSupport
import Testing

/// `quire push` and the commands that push, as an operator runs them against replicas on
/// loopback: "current is" only for what was read back, exit code 3 and the fix otherwise.
@Suite(.serialized, .enabled(if: RsyncDaemon.executable != nil, "rsync is not installed (scripts/ensure-packages installs it)"))
struct PushCommandTests {
    private func replicas(_ workspace: L10nWorkspace, _ destinations: [String]) throws {
        let settings = try workspace.read("pages/shop/site.yaml")
        try workspace.write("pages/shop/site.yaml", settings + "replicas:\n" + destinations.map { "  - \($0)\n" }.joined())
    }

    @Test func aReplicaThatMungesLinksIsAnErrorNamingTheFix() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        let daemon = try RsyncDaemon(module: workspace.path("served"))
        defer { daemon.stop() }
        try FileManager.default.createDirectory(atPath: workspace.path("served"), withIntermediateDirectories: true)
        // Its own folder: destinations are pushed at once, and two that are one folder race.
        let munged = "rsync://127.0.0.1:\(daemon.port)/munged/mdist"
        let kept = "rsync://127.0.0.1:\(daemon.port)/replica/dist"
        #expect(try workspace.quire(["build", "--no-preview", "--dist", workspace.dist]).status == 0)

        let check = try workspace.quire(["push", "--check", "--site", "shop", "--dist", workspace.dist, kept, munged])
        #expect(check.status == 3, "\(check.stderr)")
        #expect(check.stderr.contains("shop: \(kept): reachable, writable, links kept; no version pushed yet"), "\(check.stderr)")
        #expect(check.stderr.contains("error: shop: \(munged): it changes the symbolic links it receives"), "\(check.stderr)")
        #expect(check.stderr.contains("set `munge symlinks = no` in the module"), "\(check.stderr)")

        let push = try workspace.quire(["push", "--site", "shop", "--dist", workspace.dist, kept, munged])
        #expect(push.status == 3, "\(push.stderr)")
        #expect(!push.stderr.contains("current is"), "\(push.stderr)")
        #expect(push.stderr.contains("set `munge symlinks = no` in the module"), "\(push.stderr)")
        #expect(!workspace.exists("served/dist/shop/current") && !workspace.exists("served/mdist/shop/current"))

        let fixed = try workspace.quire(["push", "--site", "shop", "--dist", workspace.dist, kept])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(fixed.stderr.contains("shop: \(kept): current is v000001"), "\(fixed.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: workspace.path("served/dist/shop/current")) == "versions/v000001")
        let again = try workspace.quire(["push", "--check", "--site", "shop", "--dist", workspace.dist, kept])
        #expect(again.status == 0 && again.stderr.contains("links kept; its current is v000001"), "\(again.stderr)")
    }

    @Test func aReadOnlyModuleIsAnErrorNamingTheFix() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        try FileManager.default.createDirectory(atPath: workspace.path("served/dist"), withIntermediateDirectories: true)
        let daemon = try RsyncDaemon(module: workspace.path("served"))
        defer { daemon.stop() }
        let frozen = "rsync://127.0.0.1:\(daemon.port)/frozen/dist"
        try replicas(workspace, [frozen])
        let build = try workspace.quire(["build", "--no-preview", "--dist", workspace.dist])
        #expect(build.status == 3, "the version is published, the replica is not: \(build.stderr)")
        #expect(build.stderr.contains("published v000001"), "\(build.stderr)")
        #expect(build.stderr.contains("error: shop: \(frozen): "), "\(build.stderr)")
        #expect(build.stderr.contains("set `read only = no`"), "\(build.stderr)")
        #expect(!build.stderr.contains("current is"), "\(build.stderr)")
        let check = try workspace.quire(["push", "--check", "--site", "shop", "--dist", workspace.dist])
        #expect(check.status == 3 && check.stderr.contains("set `read only = no`"), "\(check.stderr)")
    }

    @Test func gcByHandPushesToTheReplicas() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        try FileManager.default.createDirectory(atPath: workspace.path("replica"), withIntermediateDirectories: true)
        try replicas(workspace, [workspace.path("replica")])
        let store = try workspace.read("pages/shop/store.yaml")
        for edition in 1...3 {
            try workspace.write("pages/shop/store.yaml", store + "\n# edition \(edition)\n")
            #expect(try workspace.quire(["build", "--no-preview", "--dist", workspace.dist]).status == 0)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path("replica/shop/versions")).count == 3)
        let gc = try workspace.quire(["gc", "--site", "shop", "--keep", "1", "--dist", workspace.dist])
        #expect(gc.status == 0, "\(gc.stderr)")
        #expect(gc.stderr.contains("removed 2 versions"), "\(gc.stderr)")
        #expect(gc.stderr.contains("shop: \(workspace.path("replica")): current is v000003"), "\(gc.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path("replica/shop/versions")) == ["v000003"])
    }
}
