import Foundation
import Glibc
import QuireModel
import QuireTestSupport
import Testing

@testable import QuireCore

/// `quire push` with the real rsync: folder replicas, and a replica behind an rsync daemon on loopback.
@Suite(.enabled(if: RsyncDaemon.executable != nil, "rsync is not installed (scripts/ensure-packages installs it)"))
struct ReplicationTests {
    private func publish(_ store: SiteStore, _ title: String, extra: [OutputFile] = []) throws {
        var files = baseFiles
        files[0] = page("en/trex-store.json", #"{"title":"\#(title)"}"#)
        _ = try store.publish(request(files + extra))
    }

    private func push(_ dist: TemporaryDist, _ destinations: [String]) throws -> ReplicaPush.Report {
        try ReplicaPush(dist: dist.path, site: "trex").run(to: destinations.map { try ReplicaDestination($0) })
    }

    /// The replica as `quire verify --dist` sees it: its current, re-hashed against the manifests.
    private func verified(_ replica: String) throws -> (current: VersionID?, problems: [VerificationProblem]) {
        let store = try SiteStore(dist: replica, site: "trex")
        return (try store.reader.currentVersion(), try store.operations.verify())
    }

    @Test func aPushCopiesEveryVersionAndMovesCurrentWhenAllHoldIt() throws {
        let (dist, first, second) = (TemporaryDist(), TemporaryDist(), TemporaryDist())
        let store = try dist.store()
        try publish(store, "One")
        try publish(store, "Two", extra: [page("fr/new.json", "{}")])
        let report = try push(dist, [first.path, second.path])
        #expect(report.version == VersionID(2))
        #expect(report.destinations.map(\.state) == [.current, .current])
        for replica in [first.path, second.path] {
            let (current, problems) = try verified(replica)
            #expect(current == VersionID(2))
            #expect(problems.isEmpty, "\(problems)")
            #expect(readText(replica + "/trex/current/en/trex-store.json") == #"{"title":"Two"}"#)
            #expect(try FileSystem.list(replica + "/trex/versions").sorted() == ["v000001", "v000002"])
        }
    }

    @Test func onlyTheTreesAReplicaLacksTravel() throws {
        let (dist, replica) = (TemporaryDist(), TemporaryDist())
        let store = try dist.store()
        try publish(store, "One")
        _ = try push(dist, [replica.path])
        let banner = replica.path + "/trex/current/assets/banner.jpg"
        let before = try #require(lstatInfo(banner))
        try publish(store, "Two")
        _ = try push(dist, [replica.path])
        #expect(readText(replica.path + "/trex/current/en/trex-store.json") == #"{"title":"Two"}"#)
        // The unchanged assets tree is the same tree on the replica: not written again.
        let after = try #require(lstatInfo(banner))
        #expect(after.st_ino == before.st_ino)
        #expect(after.st_mtim.tv_nsec == before.st_mtim.tv_nsec && after.st_mtim.tv_sec == before.st_mtim.tv_sec)
    }

    @Test func rollbacksUnpinsAndRetentionTravel() throws {
        let (dist, replica) = (TemporaryDist(), TemporaryDist())
        let store = try dist.store()
        for title in ["One", "Two", "Three"] { try publish(store, title) }
        _ = try push(dist, [replica.path])
        try store.operations.rollback(reason: "bad")
        _ = try push(dist, [replica.path])
        #expect(try verified(replica.path).current == VersionID(2))
        #expect(readText(replica.path + "/trex/current/en/trex-store.json") == #"{"title":"Two"}"#)
        try store.operations.unpin(reason: "fixed")
        try store.operations.gc(keep: 1)
        _ = try push(dist, [replica.path])
        let (current, problems) = try verified(replica.path)
        #expect(current == VersionID(3) && problems.isEmpty)
        #expect(try FileSystem.list(replica.path + "/trex/versions") == ["v000003"])
        // Trees no kept version reaches are gone with their manifests.
        let trees = try FileSystem.list(replica.path + "/trex/trees").filter { !$0.hasSuffix(".json") }
        #expect(Set(trees) == Set(try FileSystem.list(store.layout.trees).filter { !$0.hasSuffix(".json") }))
    }

    @Test func aFolderListedInPartsTravelsWithItsPartsAndRetentionTrimsThem() throws {
        let (dist, replica) = (TemporaryDist(), TemporaryDist())
        let store = try dist.store()
        let folder = { (edit: String) in
            (0..<700).map { page(String(format: "en/all/p-%03d.json", $0), $0 == 350 ? edit : #"{"n":\#($0)}"#) }
        }
        try publish(store, "One", extra: folder("one"))
        try publish(store, "Two", extra: folder("two"))
        _ = try push(dist, [replica.path])
        var (current, problems) = try verified(replica.path)
        #expect(current == VersionID(2) && problems.isEmpty, "\(problems)")
        #expect(readText(replica.path + "/trex/current/en/all/p-350.json") == "two")
        try store.operations.gc(keep: 1)
        _ = try push(dist, [replica.path])
        (current, problems) = try verified(replica.path)
        #expect(current == VersionID(2) && problems.isEmpty, "\(problems)")
        // Manifests and parts: the replica holds what the origin holds.
        let manifests = { (root: String) in Set(try FileSystem.list(root + "/trex/trees").filter { $0.hasSuffix(".json") }) }
        #expect(try manifests(replica.path) == manifests(dist.path))
    }

    @Test func anUnreachableReplicaIsLeftOutThenCaughtUpByOnePush() throws {
        let (dist, reachable, later) = (TemporaryDist(), TemporaryDist(), TemporaryDist())
        let store = try dist.store()
        try publish(store, "One")
        let missing = later.path + "/not-mounted"
        var report = try push(dist, [reachable.path, missing])
        #expect(report.destinations[0].state == .current)
        guard case .unreachable = report.destinations[1].state else {
            Issue.record("\(report.destinations[1].state)")
            return
        }
        #expect(!FileSystem.exists(missing))
        // The status page names each replica with its version, and the one left out as unreachable.
        let status: JSONValue = ["site": "trex", "replicas": .array(ReplicaRecord(layout: store.layout).entries())]
        let page = String(decoding: StatusPage.html(status: status), as: UTF8.self)
        #expect(page.contains("<code>\(reachable.path)</code> · v000001 · checked at"), "\(page)")
        #expect(page.contains("<code>\(missing)</code> · no version (unreachable: no such folder)"), "\(page)")
        for title in ["Two", "Three", "Four"] { try publish(store, title) }
        try FileSystem.makeDirectory(missing)
        report = try push(dist, [reachable.path, missing])
        #expect(report.destinations.map(\.state) == [.current, .current])
        let (current, problems) = try verified(missing)
        #expect(current == VersionID(4) && problems.isEmpty)
        #expect(try FileSystem.list(missing + "/trex/versions").count == 4)
        // The status page's record names each replica's version.
        let record = ReplicaRecord(layout: store.layout).entries()
        #expect(record.map { $0["version"]?.stringValue } == ["v000004", "v000004"])
    }

    @Test func aReplicaThatCannotBeMadeWholeKeepsEveryCurrentWhereItWas() throws {
        let (dist, good, served) = (TemporaryDist(), TemporaryDist(), TemporaryDist())
        let daemon = try RsyncDaemon(module: served.path)
        let store = try dist.store()
        try publish(store, "One")
        _ = try push(dist, [good.path])
        try publish(store, "Two")
        let report = try push(dist, [good.path, "rsync://127.0.0.1:\(daemon.port)/frozen"])
        #expect(report.failures.count == 2, "\(report.destinations)")
        #expect(report.failures[1].contains("set `read only = no`"), "\(report.failures)")
        // The one that holds the version is not reported current: its current did not move.
        guard case .failed(let held) = report.destinations[0].state else { throw StoreError("\(report.destinations)") }
        #expect(held.contains("its current stays"), "\(held)")
        #expect(try verified(good.path).current == VersionID(1))
        #expect(ReplicaRecord(layout: store.layout).entries().map { $0["version"]?.stringValue } == ["v000001", nil])
    }

    @Test func aTreeLeftHalfCopiedIsCompletedAndStrayTemporaryFilesGo() throws {
        let (dist, replica) = (TemporaryDist(), TemporaryDist())
        let store = try dist.store()
        try publish(store, "One")
        _ = try push(dist, [replica.path])
        try publish(store, "Two")
        // What a push killed mid-copy leaves: a tree folder without its manifest, a file missing,
        // rsync's temporary file in it.
        let tree = try #require(
            try FileSystem.list(store.layout.trees).first { name in
                !name.hasSuffix(".json") && !FileSystem.exists(replica.path + "/trex/trees/" + name)
            })
        let copy = replica.path + "/trex/trees/" + tree
        try FileSystem.makeDirectory(copy)
        try FileSystem.createFile(copy + "/.trex-store.json.Xy12Ab", Array("partial".utf8))
        // And what a push killed while writing a tree manifest or the link `current` leaves.
        let strayManifest = replica.path + "/trex/trees/." + tree + ".json.Qw34Er"
        try FileSystem.createFile(strayManifest, Array("{".utf8))
        let strayLink = replica.path + "/trex/.current.Zx56Cv"
        try FileSystem.symbolicLink("versions/v000002", at: strayLink)
        // And on the origin, the killed push's scratch files.
        let scratch = store.layout.state + "/push"
        try FileSystem.makeDirectories(scratch + "/0")
        try FileSystem.createFile(scratch + "/0/trees.list", Array("trees/gone/\n".utf8))
        _ = try push(dist, [replica.path])
        #expect(!FileSystem.exists(scratch))
        let (current, problems) = try verified(replica.path)
        #expect(current == VersionID(2) && problems.isEmpty, "\(problems)")
        #expect(!FileSystem.exists(copy + "/.trex-store.json.Xy12Ab"))
        #expect(FileSystem.exists(copy + ".json"))
        #expect(lstatInfo(strayManifest) == nil && lstatInfo(strayLink) == nil)
        #expect(try FileSystem.list(replica.path + "/trex").filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func aReplicaBehindAnRsyncDaemonOnLoopback() throws {
        let (dist, served) = (TemporaryDist(), TemporaryDist())
        let daemon = try RsyncDaemon(module: served.path)
        defer { daemon.stop() }
        let store = try dist.store()
        try publish(store, "One")
        try publish(store, "Two")
        let destination = "rsync://127.0.0.1:\(daemon.port)/replica/dist"
        var report = try push(dist, [destination])
        #expect(report.destinations.map(\.state) == [.current])
        var (current, problems) = try verified(served.path + "/dist")
        #expect(current == VersionID(2) && problems.isEmpty, "\(problems)")
        try store.operations.rollback(reason: "test")
        report = try push(dist, [destination])
        (current, problems) = try verified(served.path + "/dist")
        #expect(current == VersionID(1) && problems.isEmpty)
        daemon.stop()
        report = try push(dist, [destination])
        guard case .unreachable = report.destinations[0].state else {
            Issue.record("\(report.destinations[0].state)")
            return
        }
    }

    /// `quire watch` pushes while saves publish and `keep:` removes old versions: a version the
    /// push set out to copy may be gone before rsync reads it.
    @Test func versionsTheOriginRemovesDuringAPushAreSkipped() throws {
        let (dist, replica) = (TemporaryDist(), TemporaryDist())
        let store = try dist.store()
        for title in ["One", "Two", "Three"] { try publish(store, title) }
        let snapshot = try PushSnapshot.take(store)
        try store.operations.gc(keep: 1)
        let report = try ReplicaPush(dist: dist.path, site: "trex").push(
            to: [ReplicaDestination(replica.path)], lock: nil, startingFrom: snapshot)
        #expect(report.destinations.map(\.state) == [.current], "\(report.destinations)")
        let (current, problems) = try verified(replica.path)
        #expect(current == VersionID(3) && problems.isEmpty, "\(problems)")
        #expect(try FileSystem.list(replica.path + "/trex/versions") == ["v000003"])
    }

    @Test func aPushWhoseCurrentTheOriginRemovedCopiesTheNewCurrent() throws {
        let (dist, replica) = (TemporaryDist(), TemporaryDist())
        let store = try dist.store()
        for title in ["One", "Two"] { try publish(store, title) }
        let snapshot = try PushSnapshot.take(store)
        try publish(store, "Three")
        try store.operations.gc(keep: 1)
        let report = try ReplicaPush(dist: dist.path, site: "trex").push(
            to: [ReplicaDestination(replica.path)], lock: nil, startingFrom: snapshot)
        #expect(report.version == VersionID(3) && report.destinations.map(\.state) == [.current], "\(report.destinations)")
        let (current, problems) = try verified(replica.path)
        #expect(current == VersionID(3) && problems.isEmpty, "\(problems)")
        #expect(readText(replica.path + "/trex/current/en/trex-store.json") == #"{"title":"Three"}"#)
    }

    /// What a push killed by SIGKILL leaves: its rsync still running, its own descriptor closed
    /// without unlocking. The next push must wait for that rsync.
    @Test func anRsyncOutlivingItsPushHoldsThePushLock() throws {
        let dist = TemporaryDist()
        let path = dist.path + "/push-lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0 && flock(descriptor, LOCK_EX) == 0)
        let (started, hold) = (dist.path + "/started", dist.path + "/hold")
        try #require(FileManager.default.createFile(atPath: hold, contents: nil))
        defer { unlink(hold) }
        // The child holds the lock until `hold` is gone, however slow the machine.
        let child = Thread {
            _ = try? ChildProcess.run(
                executable: "/bin/sh", arguments: ["-c", "touch \(started); while [ -e \(hold) ]; do sleep 0.01; done"],
                sharing: descriptor)
        }
        child.start()
        while !FileSystem.exists(started) { usleep(10_000) }
        close(descriptor)
        #expect(throws: StoreError.self) { _ = try PublishLock(path: path, site: "trex", timeout: 0.2) { _ in } }
        var waited: [String] = []
        // Told it waits, then it lets the child end: the lock is taken once the child's is gone.
        _ = try PublishLock(path: path, site: "trex", name: "push lock", timeout: 30) {
            waited.append($0)
            unlink(hold)
        }
        #expect(waited.count == 1 && waited[0].contains("push lock"), "\(waited)")
    }

    @Test func destinationsAreToldApart() throws {
        #expect(try ReplicaDestination("/srv/dist/").kind == .folder)
        #expect(try ReplicaDestination("replica-disk").rsyncRoot == "./replica-disk/")
        #expect(try ReplicaDestination("rsync://cdn-origin:8730/quire/dist").kind == .daemon)
        #expect(try ReplicaDestination("deploy@origin2:/srv/dist").kind == .ssh)
        #expect(throws: StoreError.self) { try ReplicaDestination("rsync://hostonly") }
    }
}
