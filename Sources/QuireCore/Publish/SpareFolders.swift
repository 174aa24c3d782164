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

    /// The big folders' trees the last round was asked for, by path, and the folders whose tree
    /// changed since a round saw them and that have no reserve yet: saves edit those again, while
    /// a folder no save changes (a folder's preview shells) would hold a reserve for nothing.
    /// The first round, which has seen no change, takes the folders its caller says saves edit.
    private let bigFolders = Mutex<(trees: [String: String], changed: Set<String>)>(([:], []))

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
        savesEdit: (String) -> Bool = { _ in false }, shouldStop: () -> Bool
    ) -> Int {
        guard !isClosed.load(ordering: .acquiring), let present = try? FileSystem.list(lease.folder) else { return 0 }
        let wanted = Set(trees.map(\.id))
        let big = trees.filter { $0.manifest.entryCount >= RecycledFolders.fewestEntries }
        for tree in big { recycled.remember(tree.id, path: tree.path, manifest: tree.manifest) }
        noteChanges(big, savesEdit: savesEdit)
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
        let made = Atomic<Int>(0)
        inRound(missing.count, workers: workers, shouldStop: shouldStop) { index in
            let tree = missing[index]
            if let copy = recycled.take(for: tree.path) {
                switch make(tree.id, manifest: tree.manifest, recycling: copy, at: tree.path, from: layout, shouldStop: shouldStop) {
                case true?:
                    made.add(1, ordering: .relaxed)
                    return
                case nil: return
                case false?: break
                }
            }
            let resumed = have.contains(tree.id + Self.partSuffix) ? progress.withLock { $0[tree.id] } : nil
            if make(tree.id, manifest: tree.manifest, from: layout.tree(tree.id), resumingAfter: resumed, shouldStop: shouldStop) {
                made.add(1, ordering: .relaxed)
            }
        }
        return made.load(ordering: .relaxed)
    }

    /// Notes the big folders whose tree is not the one the last round saw, or, in the first
    /// round, that `savesEdit` names (`reserve` copies them).
    private func noteChanges(_ big: [(id: String, path: String, manifest: TreeManifest)], savesEdit: (String) -> Bool) {
        bigFolders.withLock { folders in
            let seen = folders.trees
            folders.trees = Dictionary(big.map { ($0.path, $0.id) }, uniquingKeysWith: { first, _ in first })
            let changedNow = big.filter { tree in seen.isEmpty ? savesEdit(tree.path) : seen[tree.path].map { $0 != tree.id } ?? false }
                .map(\.path)
            folders.changed = folders.changed.filter { folders.trees[$0] != nil }.union(changedNow)
        }
    }

    /// Links a reserve copy (`RecycledFolders`) of each tree of `RecycledFolders.fewestEntries`
    /// entries or more whose folder changed since an earlier round saw it and has no copy in the
    /// pool, `workers` at a time, stopping as `prepare` does; returns how many it completed.
    /// Called once `prepare` made the spares, while the next save's retention will remove no
    /// version: the next round then makes the spare of such a folder's new tree from its reserve
    /// in a millisecond, not from 100,000 links a save a second may not leave time for.
    func reserve(
        _ trees: [(id: String, path: String, manifest: TreeManifest)], from layout: SiteLayout, workers: Int = 1,
        shouldStop: () -> Bool
    ) -> Int {
        guard !isClosed.load(ordering: .acquiring) else { return 0 }
        let changed = bigFolders.withLock { $0.changed }
        let wanted = trees.filter {
            changed.contains($0.path) && $0.manifest.entryCount >= RecycledFolders.fewestEntries && !recycled.holdsCopy(for: $0.path)
        }
        guard !wanted.isEmpty else { return 0 }
        let made = Atomic<Int>(0)
        inRound(wanted.count, workers: workers, shouldStop: shouldStop) { index in
            let tree = wanted[index]
            let copy = RecycledFolders.Copy(folder: recycled.newFolder(), tree: tree.id, manifest: tree.manifest, linked: 0)
            guard (try? FileSystem.makeDirectory(copy.folder)) != nil else { return }
            // Kept in the pool from here, whole or (stopped) in part.
            bigFolders.withLock { _ = $0.changed.remove(tree.path) }
            guard case .whole(let whole) = finish(copy, at: tree.path, from: layout, shouldStop: shouldStop) else { return }
            if recycled.keep(whole, for: tree.path) { made.add(1, ordering: .relaxed) } else { try? FileSystem.removeTree(whole.folder) }
        }
        return made.load(ordering: .relaxed)
    }

    /// Runs `body` for each of `count` items, `workers` at a time, until `shouldStop` says so or
    /// the spares close; then syncs what it made.
    private func inRound(_ count: Int, workers: Int, shouldStop: () -> Bool, _ body: (Int) -> Void) {
        let next = Atomic<Int>(0)
        rounds.add(1, ordering: .acquiringAndReleasing)
        func work(_: Int) {
            while !shouldStop(), !isClosed.load(ordering: .acquiring) {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < count else { break }
                body(index)
            }
        }
        if workers > 1 {
            // The caller's `shouldStop` is asked from every worker (it reads atomics).
            withoutActuallyEscaping(work) { work in
                let shared = UncheckedSendable(work)
                DispatchQueue.concurrentPerform(iterations: min(workers, count)) { shared.value($0) }
            }
        } else {
            work(0)
        }
        rounds.subtract(1, ordering: .acquiringAndReleasing)
        // Their folders on disk before the next save, whose one `syncfs` would write them otherwise.
        _ = SyncFS.call(lease.lockDescriptor)
    }

    /// Links `manifest`'s entries from `source` into `target` in manifest order, past the first
    /// `count` (which it holds already); between two links it stops once `shouldStop` says so.
    /// Returns how many it holds then, and whether it stopped.
    private static func link(
        _ manifest: TreeManifest, from source: DirectoryHandle, into target: DirectoryHandle, after count: Int, shouldStop: () -> Bool
    ) throws(StoreError) -> (linked: Int, stopped: Bool) {
        var (index, linked, sinceCheck, stopped) = (0, count, 0, false)
        try manifest.forEachEntry { (entry) throws(StoreError) in
            defer { index += 1 }
            guard !stopped, index >= linked else { return }
            sinceCheck += 1
            if sinceCheck % 64 == 0, shouldStop() {
                stopped = true
                return
            }
            // A file at the link limit (EMLINK) has no spare: the publish links as before.
            try target.hardLink(from: source, entry.name, as: entry.name)
            linked = index + 1
        }
        return (linked, stopped)
    }

    /// Whether the spare is complete under its name. Stopped, it keeps its part for later, and
    /// how many names it holds. `resumingAfter`: the names a half-made one holds already (nil:
    /// none, start it; a half-made spare whose count is lost is made again).
    private func make(
        _ id: String, manifest: TreeManifest, from tree: String, resumingAfter linked: Int?, shouldStop: () -> Bool
    ) -> Bool {
        let part = lease.folder + "/" + id + Self.partSuffix
        do throws(StoreError) {
            if linked == nil {
                if FileSystem.exists(part) { try FileSystem.removeTree(part) }
                try FileSystem.makeDirectory(part)
            }
            let made = try Self.link(
                manifest, from: DirectoryHandle(tree), into: DirectoryHandle(part), after: linked ?? 0, shouldStop: shouldStop)
            if made.stopped {
                progress.withLock { $0[id] = made.linked }
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

    /// What `finish` did with a copy.
    private enum Finished {
        case whole(RecycledFolders.Copy)
        /// Back in the pool, or removed when the pool took another copy of its folder meanwhile.
        case stopped
        /// Removed: its tree is gone, or a link failed.
        case failed
    }

    /// Links what `copy` (of the folder at `path`) lacks of its tree.
    private func finish(_ copy: RecycledFolders.Copy, at path: String, from layout: SiteLayout, shouldStop: () -> Bool) -> Finished {
        guard let linked = copy.linked else { return .whole(copy) }
        var copy = copy
        do throws(StoreError) {
            let made = try Self.link(
                copy.manifest, from: DirectoryHandle(layout.tree(copy.tree)), into: DirectoryHandle(copy.folder), after: linked,
                shouldStop: shouldStop)
            copy.linked = made.stopped ? made.linked : nil
            guard made.stopped else { return .whole(copy) }
            if recycled.keep(copy, for: path) { return .stopped }
            try? FileSystem.removeTree(copy.folder)
            return .stopped
        } catch {
            try? FileSystem.removeTree(copy.folder)
            return .failed
        }
    }

    /// Makes the spare of tree `id` from a copy of the same folder (`RecycledFolders`), finished
    /// first when a save stopped it. Nil when stopped (the copy kept for later); false, the copy
    /// removed, when that fails.
    private func make(
        _ id: String, manifest: TreeManifest, recycling copy: RecycledFolders.Copy, at path: String, from layout: SiteLayout,
        shouldStop: () -> Bool
    ) -> Bool? {
        let whole: RecycledFolders.Copy
        switch finish(copy, at: path, from: layout, shouldStop: shouldStop) {
        case .whole(let finished): whole = finished
        case .stopped: return nil
        case .failed: return false
        }
        // A half-made spare of the tree goes: the copy lacks less.
        let part = lease.folder + "/" + id + Self.partSuffix
        progress.withLock { _ = $0.removeValue(forKey: id) }
        do throws(StoreError) {
            if FileSystem.exists(part) { discard(id + Self.partSuffix) }
            try FileSystem.rename(whole.folder, to: part)
            try RecycledFolders.update(
                DirectoryHandle(part), from: whole.manifest, to: manifest, source: DirectoryHandle(layout.tree(id)))
            try FileSystem.rename(part, to: lease.folder + "/" + id)
            recycledSpares.add(1, ordering: .relaxed)
            return true
        } catch {
            try? FileSystem.removeTree(whole.folder)
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
