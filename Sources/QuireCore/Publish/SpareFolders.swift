import Dispatch
import Glibc
import Synchronization

/// Private, pre-linked copies of the newest version's tree folders, one per tree id, in
/// `staging/spares-<pid>-<random>/<id>`, so that a save does not pay for the entries it keeps.
///
/// A delta publish writes a new tree for every folder on the way to a change; without a spare
/// it hard-links each entry the folder keeps (on the nested 10,000-page site a one-page save
/// edits 13 folders, most of about 100 entries: 1,200 links, the largest part of a save). With one, it renames the spare into place as the new tree's folder
/// and changes only the entries the edit names (`TreeWriter`). `quire watch` makes the spares
/// in the background after each publish (`prepare`), in the pauses between an editor's saves.
/// A publish that finds no spare links as before. With `keep:`, the trees retention removes become
/// spares of their folders' newer trees (`RecycledFolders`), so a big folder's spare costs what
/// changed since, not its entries.
///
/// A publish takes a spare and the background drops one only by renaming it, and a spare is made
/// under `<id>.tmp` and renamed to `<id>` when complete, so exactly one side gets each spare
/// and no one sees half of one. The folder is a `StagingLease`: other processes leave it alone.
///
/// A watcher that stops cleanly hands its whole spares to the next one (`close(handingOver:)`,
/// `staging/spares-kept`): a restarted watcher's first publish, which writes what changed while
/// none ran, then renames spares into place instead of linking folders of every page. The folder
/// is no lease: any lock holder's leftover cleanup removes it, so a build, rollback or gc run in
/// between costs the next watcher only its spares. A spare stays right while its tree exists:
/// trees never change, and one that is gone is not wanted, so its spare is dropped.
public final class SpareFolders: Sendable {
    static let prefix = "spares-"
    static let handedOver = prefix + "kept"
    private static let partSuffix = ".tmp"
    /// Folders retention removed from the store, being unlinked in the background (`removeLater`).
    private static let removalPrefix = "removed-"

    private let lease: StagingLease
    private let staging: String
    private let isClosed = Atomic<Bool>(false)
    /// Spares taken by publishes so far (for tests and figures).
    let taken = Atomic<Int>(0)
    /// Spares made from a recycled folder so far (for tests and figures).
    let recycledSpares = Atomic<Int>(0)
    /// Folders retention removed, waiting to become spares.
    let recycled: RecycledFolders
    private let removals = DispatchQueue(label: "quire.spare-folders.removals", qos: .utility)
    private let removalsNamed = Atomic<Int>(0)
    /// Folders `removeLater` has unlinked so far (for tests and figures).
    let removedLater = Atomic<Int>(0)

    init(staging: String) throws(StoreError) {
        self.staging = staging
        lease = try StagingLease(staging: staging, prefix: Self.prefix)
        recycled = RecycledFolders(in: lease.folder)
        adoptHandedOver()
    }

    /// Takes the spares a stopped watcher handed over: its folder replaces the lease's empty one
    /// in one rename, so two watchers starting together cannot both take it.
    private func adoptHandedOver() {
        _ = rename(staging + "/" + Self.handedOver, lease.folder)
    }

    deinit { close() }

    /// Rounds of `prepare` running now: a half-made spare is taken only once none links into it.
    private let rounds = Atomic<Int>(0)
    /// How many of its tree's names (in manifest order) each half-made spare (`<id>.tmp`) holds:
    /// a round that goes on, and a save that takes it, know what it lacks without reading its
    /// names back. Only rounds write it, and only one round runs at a time.
    private let progress = Mutex<[String: Int]>([:])

    /// How much of a tree a taken spare holds.
    enum Taken {
        case whole
        /// Made in part by a round a save stopped: it holds the tree's entries up to and
        /// including the one named `through` (in manifest order, by UTF-8), none when nil.
        case partial(through: String?)
    }

    /// Moves the spare of tree `id` (whose entries are `manifest`'s) to `destination`; nil when
    /// there is none.
    func take(_ id: String, manifest: TreeManifest, as destination: String) -> Taken? {
        guard !isClosed.load(ordering: .acquiring) else { return nil }
        func takeWhole() -> Taken? {
            guard (try? FileSystem.rename(lease.folder + "/" + id, to: destination)) != nil else { return nil }
            taken.add(1, ordering: .relaxed)
            return .whole
        }
        if let whole = takeWhole() { return whole }
        // A spare of 10,000 entries stopped half-way: its links are as many fewer for the save
        // to make. The round stops within 64 links of a save's start; until then it may be
        // linking into it, or completing it from a recycled folder (which does not stop).
        guard FileSystem.exists(lease.folder + "/" + id + Self.partSuffix), roundsStopped(within: 0.05) else { return nil }
        if let whole = takeWhole() { return whole }
        guard let linked = progress.withLock({ $0.removeValue(forKey: id) }),
            (try? FileSystem.rename(lease.folder + "/" + id + Self.partSuffix, to: destination)) != nil
        else { return nil }
        taken.add(1, ordering: .relaxed)
        return .partial(through: linked == 0 ? nil : manifest.entryName(at: linked - 1))
    }

    private func roundsStopped(within seconds: Double) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while rounds.load(ordering: .acquiring) > 0 {
            guard DispatchTime.now().uptimeNanoseconds < deadline else { return false }
            usleep(100)
        }
        return true
    }

    /// Makes a spare for each tree that has none, in the order given, `workers` at a time (links
    /// into one folder wait for each other on its lock, links into two do not: `quire watch`
    /// makes two at once, one a core), and drops the spares of trees not listed. Stops between
    /// two links once `shouldStop` (asked by every worker) says so (a save has started); a spare
    /// left half made is finished by the next round, so even a folder of 10,000 entries gets one
    /// between saves that come faster than it can be made whole. Returns how many it completed.
    func prepare(
        _ trees: [(id: String, path: String, manifest: TreeManifest)], from layout: SiteLayout, workers: Int = 1,
        shouldStop: () -> Bool
    ) -> Int {
        guard !isClosed.load(ordering: .acquiring), let present = try? FileSystem.list(lease.folder) else { return 0 }
        let wanted = Set(trees.map(\.id))
        for tree in trees where tree.manifest.entryCount >= RecycledFolders.fewestEntries {
            recycled.remember(tree.id, path: tree.path, manifest: tree.manifest)
        }
        // A half-made spare (`<id>.tmp`) stays while its tree is wanted: the round finishes it.
        for name in present where !RecycledFolders.holds(name) && !name.hasPrefix(Self.removalPrefix) {
            let id = name.hasSuffix(Self.partSuffix) ? String(name.dropLast(Self.partSuffix.count)) : name
            if !wanted.contains(id) {
                discard(name)
                progress.withLock { _ = $0.removeValue(forKey: id) }
            }
        }
        let have = Set(present)
        let missing = trees.filter { !have.contains($0.id) }
        guard !missing.isEmpty else { return 0 }
        let next = Atomic<Int>(0)
        let made = Atomic<Int>(0)
        rounds.add(1, ordering: .acquiringAndReleasing)
        func work(_: Int) {
            while !shouldStop(), !isClosed.load(ordering: .acquiring) {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < missing.count else { break }
                let tree = missing[index]
                if let recycledTree = recycled.take(for: tree.path),
                    make(tree.id, manifest: tree.manifest, recycling: recycledTree, from: layout.tree(tree.id))
                {
                    made.add(1, ordering: .relaxed)
                    continue
                }
                let resumed = have.contains(tree.id + Self.partSuffix) ? progress.withLock { $0[tree.id] } : nil
                if make(tree.id, manifest: tree.manifest, from: layout.tree(tree.id), resumingAfter: resumed, shouldStop: shouldStop) {
                    made.add(1, ordering: .relaxed)
                }
            }
        }
        if workers > 1 {
            // The caller's `shouldStop` is asked from every worker (it reads atomics).
            withoutActuallyEscaping(work) { work in
                let shared = UncheckedSendable(work)
                DispatchQueue.concurrentPerform(iterations: min(workers, missing.count)) { shared.value($0) }
            }
        } else {
            work(0)
        }
        rounds.subtract(1, ordering: .acquiringAndReleasing)
        // Their folders on disk before the next save, whose one `syncfs` would write them otherwise.
        _ = SyncFS.call(lease.lockDescriptor)
        return made.load(ordering: .relaxed)
    }

    /// Whether the spare is complete under its name. Stopped, it keeps its part for later, and
    /// how many names it holds. `resumingAfter`: the names a half-made one holds already (nil:
    /// none, start it; a half-made spare whose count is lost is made again).
    private func make(
        _ id: String, manifest: TreeManifest, from tree: String, resumingAfter linked: Int?, shouldStop: () -> Bool
    ) -> Bool {
        let part = lease.folder + "/" + id + Self.partSuffix
        var count = linked ?? 0
        do throws(StoreError) {
            if linked == nil {
                if FileSystem.exists(part) { try FileSystem.removeTree(part) }
                try FileSystem.makeDirectory(part)
            }
            let source = try DirectoryHandle(tree)
            let target = try DirectoryHandle(part)
            var (index, sinceCheck, stopped) = (0, 0, false)
            try manifest.forEachEntry { (entry) throws(StoreError) in
                defer { index += 1 }
                guard !stopped, index >= count else { return }
                sinceCheck += 1
                if sinceCheck % 64 == 0, shouldStop() {
                    stopped = true
                    return
                }
                // A file at the link limit (EMLINK) has no spare: the publish links as before.
                try target.hardLink(from: source, entry.name, as: entry.name)
                count = index + 1
            }
            if stopped {
                progress.withLock { $0[id] = count }
                return false
            }
            try FileSystem.rename(part, to: lease.folder + "/" + id)
            progress.withLock { _ = $0.removeValue(forKey: id) }
            return true
        } catch {
            progress.withLock { _ = $0.removeValue(forKey: id) }
            try? FileSystem.removeTree(part)
            return false
        }
    }

    /// Makes the spare of tree `id` from a recycled folder of the same path; false (the folder
    /// removed) when that fails. A half-made spare of the tree goes: the recycled one lacks less.
    private func make(
        _ id: String, manifest: TreeManifest, recycling recycledTree: (folder: String, manifest: TreeManifest), from tree: String
    ) -> Bool {
        let recycledFolder = recycledTree.folder
        let part = lease.folder + "/" + id + Self.partSuffix
        progress.withLock { _ = $0.removeValue(forKey: id) }
        do throws(StoreError) {
            if FileSystem.exists(part) { discard(id + Self.partSuffix) }
            try FileSystem.rename(recycledFolder, to: part)
            try RecycledFolders.update(DirectoryHandle(part), from: recycledTree.manifest, to: manifest, source: DirectoryHandle(tree))
            try FileSystem.rename(part, to: lease.folder + "/" + id)
            recycledSpares.add(1, ordering: .relaxed)
            return true
        } catch {
            try? FileSystem.removeTree(recycledFolder)
            try? FileSystem.removeTree(part)
            return false
        }
    }

    /// Takes a folder retention took out of the store (`trees/`, `versions/`) and unlinks it in
    /// the background: the publish lock retention runs in is not held while a folder of 10,000
    /// entries goes. False when closed or when it cannot be moved in: the caller removes it.
    func removeLater(_ folder: String) -> Bool {
        guard !isClosed.load(ordering: .acquiring) else { return false }
        let inside = lease.folder + "/" + Self.removalPrefix + String(removalsNamed.add(1, ordering: .relaxed).newValue)
        guard (try? FileSystem.rename(folder, to: inside)) != nil else { return false }
        // Weak: the last reference must not go on this queue, whose `close` waits for it.
        removals.async { [weak self] in
            if (try? FileSystem.removeTree(inside)) != nil { self?.removedLater.add(1, ordering: .relaxed) }
        }
        return true
    }

    private func discard(_ name: String) {
        let aside = lease.folder + "/" + name + ".discarded"
        guard (try? FileSystem.rename(lease.folder + "/" + name, to: aside)) != nil else { return }
        try? FileSystem.removeTree(aside)
    }

    /// Removes every spare, then the lease. Idempotent. `handingOver`: the whole spares stay
    /// for the next watcher (see the type's comment); half-made and recycled ones, whose state
    /// is this process's memory, go.
    public func close(handingOver: Bool = false) {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        removals.sync {}
        if handingOver, let names = try? FileSystem.list(lease.folder) {
            for name in names where name.hasSuffix(Self.partSuffix) || RecycledFolders.holds(name) || name.hasPrefix(Self.removalPrefix) {
                discard(name)
            }
            let kept = staging + "/" + Self.handedOver
            // An older hand-over (another watcher's) gives way to this one, the newer.
            if FileSystem.exists(kept) { try? FileSystem.removeTree(kept) }
            _ = try? FileSystem.rename(lease.folder, to: kept)
        }
        lease.end()
    }
}

/// A value handed to concurrent workers that the compiler cannot see is safe to share.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
