import Foundation
import Glibc
import QuireModel
import QuireTestSupport
import Testing

@testable import QuireCore

/// A push reads each replica's links back over its own transport, and `quire push --check`
/// probes a replica before the first push: a replica that changes links, refuses writes or ends
/// on another version is an error naming the fix, never "current is".
@Suite(.enabled(if: RsyncDaemon.executable != nil, "rsync is not installed (scripts/ensure-packages installs it)"))
struct ReplicaReadBackTests {
    private func publish(_ store: SiteStore, _ title: String) throws {
        var files = baseFiles
        files[0] = page("en/trex-store.json", #"{"title":"\#(title)"}"#)
        _ = try store.publish(request(files))
    }

    private func push(_ dist: TemporaryDist, _ destinations: [String]) throws -> ReplicaPush.Report {
        try ReplicaPush(dist: dist.path, site: "trex").run(to: destinations.map { try ReplicaDestination($0) })
    }

    @Test func aDaemonThatMungesLinksFailsThePushBeforeAnyCurrentMoves() throws {
        let (dist, folder, served) = (TemporaryDist(), TemporaryDist(), TemporaryDist())
        let daemon = try RsyncDaemon(module: served.path)
        defer { daemon.stop() }
        let store = try dist.store()
        try publish(store, "One")
        _ = try push(dist, [folder.path])
        try publish(store, "Two")
        let munged = "rsync://127.0.0.1:\(daemon.port)/munged/dist"
        let report = try push(dist, [folder.path, munged])
        guard case .failed(let reason) = report.destinations[1].state, case .failed = report.destinations[0].state else {
            throw StoreError("\(report.destinations)")
        }
        #expect(reason.contains("changes the symbolic links it receives"), "\(reason)")
        #expect(reason.contains("set `munge symlinks = no` in the module"), "\(reason)")
        #expect(!report.flipped)
        // Its probe link failed before any tree went (trees are sent once, so never with links changed).
        #expect(try FileSystem.list(served.path + "/dist/trex/trees").isEmpty)
        #expect(lstatInfo(served.path + "/dist/trex/current") == nil)
        #expect(try FileSystem.readLink(folder.path + "/trex/current") == "versions/v000001")
        // The same folder behind a module that keeps links: the push completes.
        let fixed = try push(dist, [folder.path, "rsync://127.0.0.1:\(daemon.port)/replica/dist"])
        #expect(fixed.destinations.map(\.state) == [.current, .current], "\(fixed.destinations)")
        #expect(try SiteStore(dist: served.path + "/dist", site: "trex").operations.verify().isEmpty)
    }

    @Test func aCurrentThatReadsBackOtherwiseIsAFailure() throws {
        let (dist, replica) = (TemporaryDist(), TemporaryDist())
        let store = try dist.store()
        try publish(store, "One")
        try publish(store, "Two")
        _ = try push(dist, [replica.path])
        let work = dist.path + "/scratch"
        try FileSystem.makeDirectory(work)
        let copy = ReplicaCopy(destination: try ReplicaDestination(replica.path), site: "trex", origin: store.root, work: work, lock: nil)
        #expect(try copy.readBack(VersionID(2), current: true) == .whole)
        // Another origin (or a hand) moved it meanwhile.
        try FileSystem.remove(replica.path + "/trex/current")
        try FileSystem.symbolicLink("versions/v000001", at: replica.path + "/trex/current")
        #expect(try copy.readBack(VersionID(2), current: true) == .failed("`current` reads 'versions/v000001', not 'versions/v000002'"))
        try FileSystem.remove(replica.path + "/trex/current")
        try FileSystem.makeDirectory(replica.path + "/trex/current")
        #expect(try copy.readBack(VersionID(2), current: true) == .failed("`current` is there but not a symbolic link"))
        // A version's tree link that reads otherwise.
        let link = replica.path + "/trex/versions/v000002/en"
        let target = try FileSystem.readLink(link)
        try FileSystem.remove(link)
        try FileSystem.symbolicLink("/rsyncd-munged/" + target, at: link)
        guard case .failed(let reason) = try copy.readBack(VersionID(2), current: false) else { throw StoreError("not caught") }
        #expect(reason.contains("`versions/v000002/en` reads '/rsyncd-munged/"), "\(reason)")
    }

    @Test func theProbeTellsReadyReplicasFromBrokenOnesAndLeavesNothing() throws {
        let (dist, folder, served) = (TemporaryDist(), TemporaryDist(), TemporaryDist())
        let daemon = try RsyncDaemon(module: served.path)
        defer { daemon.stop() }
        let store = try dist.store()
        try publish(store, "One")
        let base = "rsync://127.0.0.1:\(daemon.port)"
        _ = try push(dist, [folder.path])
        try FileSystem.makeDirectory(served.path + "/ro")
        let destinations = try [folder.path, base + "/replica/dist", base + "/munged/mdist", base + "/frozen/ro", folder.path + "/gone"]
            .map { try ReplicaDestination($0) }
        let results = try ReplicaPush(dist: dist.path, site: "trex").check(destinations)
        #expect(results[0].outcome == .ready(VersionID(1)))
        #expect(results[1].outcome == .ready(nil))
        guard case .failed(let munged) = results[2].outcome, case .failed(let frozen) = results[3].outcome,
            case .unreachable = results[4].outcome
        else { throw StoreError("\(results)") }
        #expect(munged.contains("set `munge symlinks = no`"), "\(munged)")
        #expect(frozen.contains("set `read only = no`"), "\(frozen)")
        // No probe link stays behind, and nothing was made where no folder was.
        for folder in [folder.path, served.path + "/dist", served.path + "/mdist"] {
            #expect(try FileSystem.list(folder).filter { $0.hasPrefix(".quire-probe") }.isEmpty, "\(folder)")
        }
        #expect(!FileSystem.exists(folder.path + "/gone"))
        // The status page shows what each probe found.
        let status: JSONValue = ["site": "trex", "replicas": .array(ReplicaRecord(layout: store.layout).entries())]
        let html = String(decoding: StatusPage.html(status: status), as: UTF8.self)
        #expect(html.contains("<code>\(folder.path)</code> · v000001 · checked at"), "\(html)")
        #expect(html.contains(" · probe ready at "), "\(html)")
        #expect(html.contains("/munged/mdist</code> · no version (unpushed) · checked at"), "\(html)")
        #expect(html.contains(" · probe failed: it changes the symbolic links it receives"), "\(html)")
    }

    @Test func listingsAreReadWithTheirStoredSizes() {
        let listing = """
            drwxr-xr-x          4,096 2026/12/04 12:25:38 .
            lrwxrwxrwx             26 2026/12/04 12:25:38 current -> versions/v1
            lrwxrwxrwx          1,029 2026/12/04 12:25:38 versions/v1/a b -> ../../trees/t1
            -rw-r--r--              3 2026/12/04 12:25:38 versions/v1/manifest.json
            rsync: some message
            """
        let links = ReplicaLinks(listing: listing)
        #expect(links.links["current"] == ReplicaLinks.Link(target: "versions/v1", storedBytes: 26))
        #expect(links.links["versions/v1/a b"] == ReplicaLinks.Link(target: "../../trees/t1", storedBytes: 1029))
        #expect(links.names == [".", "current", "versions/v1/a b", "versions/v1/manifest.json"])
        #expect(links.links["current"]?.isUnchanged == false)
    }
}
