import Dispatch
import Glibc
import Synchronization

/// Private, pre-linked copies of the newest version's tree folders, one per tree id, in
/// `staging/spares-<pid>-<random>/<id>`, so that a save does not pay for the entries it keeps.
///
/// A delta publish writes a new tree for every folder on the way to a change; without a spare
/// it hard-links each entry the folder keeps (on the nested 10,000-page site a one-page save
/// edits 13 folders, most of about 100 entries: 1,200 links at 8–10 µs each in this VM's kernel, the
/// largest part of a save). With one, it renames the spare into place as the new tree's folder
/// and changes only the entries the edit names (`TreeWriter`). `quire watch` makes the spares
/// in the background after each publish (`prepare`), in the pauses between an editor's saves.
/// A publish that finds no spare links as before.
///
/// A publish takes a spare and the background drops one only by renaming it, and a spare is made
/// under `<id>.tmp` and renamed to `<id>` when complete, so exactly one side gets each spare
/// and no one sees half of one. The folder is a `StagingLease`: other processes leave it alone.
public final class SpareFolders: Sendable {
    static let prefix = "spares-"
    private static let partSuffix = ".tmp"

    private let lease: StagingLease
    private let isClosed = Atomic<Bool>(false)
    /// Spares taken by publishes so far (for tests and figures).
    let taken = Atomic<Int>(0)

    init(staging: String) throws(StoreError) {
        lease = try StagingLease(staging: staging, prefix: Self.prefix)
    }

    deinit { close() }

    /// Rounds of `prepare` running now: a half-made spare is taken only once none links into it.
    private let rounds = Atomic<Int>(0)

    /// How much of a tree a taken spare holds.
    enum Taken {
        case whole
        /// Made in part by a round a save stopped: the publish links the entries it lacks.
        case partial
    }

    /// Moves the spare of tree `id` to `destination`; nil when there is none.
    func take(_ id: String, as destination: String) -> Taken? {
        guard !isClosed.load(ordering: .acquiring) else { return nil }
        if (try? FileSystem.rename(lease.folder + "/" + id, to: destination)) != nil {
            taken.add(1, ordering: .relaxed)
            return .whole
        }
        // A spare of 10,000 entries stopped half-way: its links are as many fewer for the save
        // to make. The round stops within 64 links of a save's start; until then it may be
        // linking into it.
        guard FileSystem.exists(lease.folder + "/" + id + Self.partSuffix), roundsStopped(within: 0.05),
            (try? FileSystem.rename(lease.folder + "/" + id + Self.partSuffix, to: destination)) != nil
        else { return nil }
        taken.add(1, ordering: .relaxed)
        return .partial
    }

    private func roundsStopped(within seconds: Double) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while rounds.load(ordering: .acquiring) > 0 {
            guard DispatchTime.now().uptimeNanoseconds < deadline else { return false }
            usleep(100)
        }
        return true
    }

    /// Makes a spare for each tree that has none, in the order given, and drops the spares of
    /// trees not listed. Stops between two links once `shouldStop` says so (a save has
    /// started); a spare left half made is finished by the next round, so even a folder of
    /// 10,000 entries gets one between saves that come faster than it can be made whole.
    /// Returns how many spares it completed.
    func prepare(_ trees: [(id: String, manifest: TreeManifest)], from layout: SiteLayout, shouldStop: () -> Bool) -> Int {
        guard !isClosed.load(ordering: .acquiring), let present = try? FileSystem.list(lease.folder) else { return 0 }
        let wanted = Set(trees.map(\.id))
        // A half-made spare (`<id>.tmp`) stays while its tree is wanted: the round finishes it.
        for name in present {
            let id = name.hasSuffix(Self.partSuffix) ? String(name.dropLast(Self.partSuffix.count)) : name
            if !wanted.contains(id) { discard(name) }
        }
        let have = Set(present)
        var made = 0
        var linked = false
        rounds.add(1, ordering: .acquiringAndReleasing)
        for tree in trees where !have.contains(tree.id) {
            guard !shouldStop(), !isClosed.load(ordering: .acquiring) else { break }
            linked = true
            let resuming = have.contains(tree.id + Self.partSuffix)
            if make(
                tree.id, names: tree.manifest.entries.map(\.name), from: layout.tree(tree.id), resuming: resuming, shouldStop: shouldStop)
            {
                made += 1
            }
        }
        rounds.subtract(1, ordering: .acquiringAndReleasing)
        // Their folders on disk before the next save, whose one `syncfs` would write them otherwise.
        if linked { _ = SyncFS.call(lease.lockDescriptor) }
        return made
    }

    /// Whether the spare is complete under its name. Stopped, it keeps its part for later.
    private func make(_ id: String, names: [String], from tree: String, resuming: Bool, shouldStop: () -> Bool) -> Bool {
        let part = lease.folder + "/" + id + Self.partSuffix
        do throws(StoreError) {
            if !resuming { try FileSystem.makeDirectory(part) }
            let source = try DirectoryHandle(tree)
            let target = try DirectoryHandle(part)
            let linked = resuming ? Set(try target.entries().map(\.name)) : []
            var count = 0
            for name in names where !linked.contains(name) {
                count += 1
                if count % 64 == 0, shouldStop() { return false }
                // A file at the link limit (EMLINK) has no spare: the publish links as before.
                try target.hardLink(from: source, name, as: name)
            }
            try FileSystem.rename(part, to: lease.folder + "/" + id)
            return true
        } catch {
            try? FileSystem.removeTree(part)
            return false
        }
    }

    private func discard(_ name: String) {
        let aside = lease.folder + "/" + name + ".discarded"
        guard (try? FileSystem.rename(lease.folder + "/" + name, to: aside)) != nil else { return }
        try? FileSystem.removeTree(aside)
    }

    /// Removes every spare, then the lease. Idempotent.
    public func close() {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        lease.end()
    }
}
