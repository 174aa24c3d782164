// Everything Quire writes under `dist/<site>/`: the public types and the store itself. The steps
// live in small types beside this file (TreePlanner, TreeWriter, CurrentLink, PublishLock, ...).
public import QuireModel
import Glibc
import Synchronization

/// A version id: `v000001`, `v000002`, ... numbered per site in publish order.
public struct VersionID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var number: Int
    public init(_ number: Int) { self.number = number }
    public init?(_ text: String) {
        guard text.count == 7, text.hasPrefix("v"), let number = Int(text.dropFirst()), number > 0 else { return nil }
        self.number = number
    }
    public var description: String { "v" + String(repeating: "0", count: max(0, 6 - String(number).count)) + String(number) }
    public static func < (lhs: VersionID, rhs: VersionID) -> Bool { lhs.number < rhs.number }
}

/// One file of a version to publish, by its path inside the version (`en/trex-store.json`).
public struct OutputFile: Sendable {
    public enum Content: Sendable {
        case bytes([UInt8])
        /// The same file as in the newest version (unchanged, or a broken page keeping its last
        /// good output): shared or linked, never rewritten.
        case carried
        /// Written while rendering into the store's staging area (`StagingBlobs`): moved into
        /// its tree by the publish, so the bytes need not stay in memory until then.
        case staged(StagedBlob)
    }

    public var path: String
    public var content: Content
    /// Digest of everything this file was built from; the next build rebuilds when it differs.
    public var inputDigest: String
    /// Listed with the file in the manifest (ttl, variants, ...).
    public var metadata: JSONValue?

    public init(path: String, content: Content, inputDigest: String, metadata: JSONValue? = nil) {
        self.path = path
        self.content = content
        self.inputDigest = inputDigest
        self.metadata = metadata
    }
}

/// A file as a published version lists it.
public struct PublishedFile: Sendable, Hashable {
    public var sha256: String
    public var size: Int
    public var inputDigest: String
    public var metadata: JSONValue?

    public init(sha256: String, size: Int, inputDigest: String, metadata: JSONValue? = nil) {
        self.sha256 = sha256
        self.size = size
        self.inputDigest = inputDigest
        self.metadata = metadata
    }
}

public struct PublishRequest: Sendable {
    /// Every file of the new version, carried ones included; a file not listed is not in it.
    public var files: [OutputFile]
    /// Site-level manifest fields (locales, default_locale, fallbacks, ttl, source_digest, ...).
    public var manifest: JSONObject
    /// The build record (timings, warnings, ...), stored as `build.json` in the version.
    public var buildRecord: JSONObject

    public init(files: [OutputFile], manifest: JSONObject, buildRecord: JSONObject) {
        self.files = files
        self.manifest = manifest
        self.buildRecord = buildRecord
    }
}

public enum PublishOutcome: Sendable, Equatable {
    /// A new version; `isCurrent` is false when the site is pinned to an older one.
    case published(VersionID, isCurrent: Bool)
    /// The output equals the newest version: nothing was written.
    case unchanged(VersionID)
}

/// An operational failure (I/O, lock held, disk full): exit code 3.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// For system failures: what was being done (`rename`, `create`, ...), on which path, and errno.
    public var operation: String?
    public var path: String?
    public var errorNumber: Int32?

    public init(_ description: String) { self.description = description }
}

/// Everything Quire writes under `dist/<site>/`, and the only code that does.
///
/// Layout (DESIGN.md §3): `current -> versions/<v>`; each version folder holds `manifest.json`,
/// `build.json` and one link per top-level folder into `trees/<id>`, immutable content-addressed
/// folders shared between versions; `status/` is mutable; `state/` holds lock, pin and history.
///
/// Use one store per serial queue: the lock is re-entrant per store, not per thread.
public final class SiteStore: @unchecked Sendable {
    public let site: String
    /// `dist/<site>`.
    public let root: String

    /// How long the ops methods (rollback, unpin, gc, ...) wait for the lock when the caller does
    /// not hold it already, and whom they tell they are waiting.
    public var operationLockTimeout: Double = 30
    public var operationWaiting: @Sendable (String) -> Void = { _ in }

    let layout: SiteLayout
    let treeChildren = TreeChildren()

    private struct State {
        var lockDepth = 0
        var newest: (version: VersionID, index: FileIndex)?
        /// The newest version last seen, and the last manifest written or read: versions are
        /// numbered in publish order and never change, so both are checked with a `stat`.
        var newestSeen: VersionID?
        var lastManifest: VersionManifest?
        var spares: SpareFolders?
        /// Whether this store has looked for a publish whose history line a system crash lost.
        var historyChecked = false
        /// Whether this store has looked for what a system crash can leave (`checkAfterRestart`).
        var restartChecked = false
        /// Whether this store has removed what crashed processes left, before a first body.
        var leftoversRemoved = false
    }

    private let state = Mutex(State())

    public init(dist: String, site: String) throws(StoreError) {
        guard !site.isEmpty, site != ".", site != "..", !site.contains("/"), !site.utf8.contains(0) else {
            throw StoreError("'\(site)' is not a site name: use a folder name without '/'")
        }
        self.site = site
        self.root = dist + "/" + site
        self.layout = SiteLayout(root: root)
        try FileSystem.makeDirectories(root)
        for folder in layout.folders.dropFirst() { try FileSystem.makeDirectory(folder, ignoringExisting: true) }
    }

    // MARK: - The lock

    /// Runs `body` holding the site's publish lock; `waiting` is told once when another process
    /// holds it; throws after `timeout` seconds. Leftovers of a crashed publish are removed.
    public func withPublishLock<T>(timeout: Double, waiting: (String) -> Void, _ body: () throws -> T) throws -> T {
        let reentered = state.withLock { state in
            guard state.lockDepth > 0 else { return false }
            state.lockDepth += 1
            return true
        }
        if reentered {
            defer { state.withLock { $0.lockDepth -= 1 } }
            return try body()
        }
        let lock = try PublishLock(path: layout.lock, site: site, timeout: timeout, waiting: waiting)
        state.withLock { $0.lockDepth = 1 }
        let result = Result { () throws -> T in
            CrashPoint.recover.reach()
            // Leftovers never stand in a publish's way (each temporary name holds its writer's
            // pid, and a writer removes its own stale one): after the first lock they are
            // removed behind the body, off a save's critical path (four folder listings).
            let leftoversRemoved = state.withLock { $0.leftoversRemoved }
            if !leftoversRemoved {
                try removeLeftovers()
                state.withLock { $0.leftoversRemoved = true }
            }
            try checkAfterRestart()
            try completeInterruptedSwap()
            try recordUnrecordedPublish()
            defer { if leftoversRemoved { try? removeLeftovers() } }
            return try body()
        }
        state.withLock { $0.lockDepth = 0 }
        _ = consume lock
        return try result.get()
    }

    /// The lock for the ops methods: taken with `operationLockTimeout` unless already held.
    func withOperationLock<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        do {
            return try withPublishLock(timeout: operationLockTimeout, waiting: operationWaiting) { try body() }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError("\(error)")
        }
    }

    /// Staging folders and temporary files a crashed process left behind (call with the lock held).
    private func removeLeftovers() throws(StoreError) {
        // A live build's staged blobs are written before it takes the lock: they stay.
        for name in try FileSystem.list(layout.staging) where !StagingLease.isInUse(name, staging: layout.staging) {
            try FileSystem.removeTree(layout.staging + "/" + name)
        }
        for name in try FileSystem.list(root) where name.hasPrefix("current.tmp-") { try FileSystem.remove(root + "/" + name) }
        // `pin.tmp-<pid>`: only lock holders write in state/.
        for name in try FileSystem.list(layout.state) where name.contains(".tmp-") { try FileSystem.remove(layout.state + "/" + name) }
        // Status files are written without the lock (by a watcher, in the background): only a
        // dead process's temporary files go.
        for name in (try? FileSystem.list(layout.status)) ?? [] {
            guard let range = name.range(of: ".tmp-", options: .backwards), let pid = pid_t(name[range.upperBound...]),
                  kill(pid, 0) == -1, errno == ESRCH else { continue }
            try FileSystem.remove(layout.status + "/" + name)
        }
    }

    // MARK: - Reading versions

    /// The highest version number in `versions/` (not `current`, which a pin may hold back).
    /// The one seen last is still the newest while it exists and the next number does not (a
    /// publisher always adds the next number; gc and retirement never leave a gap above a
    /// version they keep): two `stat`s instead of listing every version on each save.
    public func newestVersion() throws(StoreError) -> VersionID? {
        if let seen = state.withLock({ $0.newestSeen }), FileSystem.exists(layout.version(seen)),
           !FileSystem.exists(layout.version(VersionID(seen.number + 1))) {
            return seen
        }
        let newest = try allVersions().last
        state.withLock { $0.newestSeen = newest }
        return newest
    }

    /// How many versions `versions/` holds.
    public func versionCount() throws(StoreError) -> Int { try allVersions().count }

    public func currentVersion() throws(StoreError) -> VersionID? {
        try CurrentLink(layout: layout).read()
    }

    public func pinnedVersion() throws(StoreError) -> VersionID? {
        try PinFile(path: layout.pin).read()?.version
    }

    /// Every version in `versions/`, oldest first.
    func allVersions() throws(StoreError) -> [VersionID] {
        try FileSystem.list(layout.versions).compactMap(VersionID.init).sorted()
    }

    func manifest(of version: VersionID) throws(StoreError) -> VersionManifest {
        let path = layout.versionManifest(version)
        guard FileSystem.exists(layout.version(version)) else {
            throw StoreError("site '\(site)' has no version '\(version)': list them with 'quire versions'")
        }
        if let last = state.withLock({ $0.lastManifest }), last.version == version { return last }
        let manifest = try VersionManifest(parsing: FileSystem.readFile(path), path: path)
        state.withLock { $0.lastManifest = manifest }
        return manifest
    }

    /// Every file of a version, by path (cached in memory for the newest version).
    public func files(of version: VersionID) throws(StoreError) -> [String: PublishedFile] {
        try index(of: version).files
    }

    /// Takes the newest version's cached index out of the cache, so that the caller holds its
    /// only copy and can update it in place (a delta publish) without copying every entry.
    func takeCachedIndex(of version: VersionID) -> FileIndex? {
        state.withLock { state in
            guard let cached = state.newest, cached.version == version else { return nil }
            state.newest = nil
            return cached.index
        }
    }

    func restoreCachedIndex(_ index: FileIndex, of version: VersionID) {
        state.withLock { state in if state.newest == nil { state.newest = (version, index) } }
    }

    /// The named files of a version (those it has), without listing the rest.
    public func files(_ paths: some Sequence<String>, of version: VersionID) throws(StoreError) -> [String: PublishedFile] {
        let index = try index(of: version)
        var files: [String: PublishedFile] = [:]
        for path in paths { if let location = index.location(of: path) { files[path] = location.file } }
        return files
    }

    func index(of version: VersionID, trees: TreeReader? = nil) throws(StoreError) -> FileIndex {
        if let cached = state.withLock({ $0.newest }), cached.version == version { return cached.index }
        let index = try FileIndex(manifest: manifest(of: version), trees: trees ?? TreeReader(layout: layout))
        if try version == newestVersion() { state.withLock { $0.newest = (version, index) } }
        return index
    }

    // MARK: - Publishing

    /// Stages, syncs once, moves into `versions/` and swaps `current` (unless pinned). Call with the lock held.
    public func publish(_ request: PublishRequest) throws(StoreError) -> PublishOutcome {
        try withOperationLock { () throws(StoreError) -> PublishOutcome in try publishHoldingLock(request) }
    }

    private func publishHoldingLock(_ request: PublishRequest) throws(StoreError) -> PublishOutcome {
        let newest = try newestVersion()
        let previousIndex = try newest.map { version throws(StoreError) in try index(of: version) } ?? FileIndex()
        let planned = try TreePlanner(previous: previousIndex).plan(request.files)
        // Indexing a cold build's 60,000 files takes as long as writing and syncing its trees:
        // both at once.
        let newIndex = BackgroundValue { [layout] in FileIndex(planned: planned, layout: layout) }
        return try commit(planned, base: newest, siteFields: request.manifest, buildRecord: request.buildRecord) { newIndex.value }
    }

    /// Writes the planned version (unless it equals `base`), then records and swaps it in.
    /// `makeIndex` gives the new version's file index once it is written.
    func commit(_ planned: [(name: String, tree: PlannedTree)], base newest: VersionID?, baseManifest: VersionManifest? = nil,
                siteFields: JSONObject, buildRecord: JSONObject, makeIndex: () -> FileIndex) throws(StoreError) -> PublishOutcome {
        let version = VersionID((newest?.number ?? 0) + 1)
        let folders: [(name: String, folder: VersionManifest.Folder)] = planned.map { entry in
            (entry.name, VersionManifest.Folder(tree: entry.tree.id, files: entry.tree.fileCount, bytes: entry.tree.byteCount))
        }
        let next = VersionManifest(
            site: site, version: version, parent: newest, builtAt: Timestamp.now(), siteFields: siteFields, folders: folders)
        if let newest {
            let base = if let baseManifest { baseManifest } else { try manifest(of: newest) }
            if next.hasSameContent(as: base) { return .unchanged(newest) }
        }

        let spares = state.withLock { $0.spares }
        let staging = try VersionWriter(layout: layout, spares: spares).write(next, planned: planned, buildRecord: buildRecord)

        // History before the swap: a process killed between the two leaves a complete newest
        // version that the next lock holder puts live (`completeInterruptedSwap`), so the entry
        // comes true either way. A failure (disk full) takes the version back out instead.
        // The line is synced after the swap, with `current`'s folder, so readers do not wait for
        // it: once written it outlives this process, and should a system crash lose it, the
        // next process to take the lock writes it again (`recordUnrecordedPublish`).
        let before = try currentVersion()
        let pin = try PinFile(path: layout.pin).read()
        let reason = pin.map { "current stays at \($0.version): pinned" } ?? ""
        do throws(StoreError) {
            CrashPoint.history.reach()
            try History(path: layout.history).append(HistoryEntry(action: .publish, from: before, to: version, reason: reason), durable: pin != nil)
            if pin == nil {
                CrashPoint.swap.reach()
                try CurrentLink(layout: layout).point(at: version, alsoSyncing: [layout.history])
            }
        } catch {
            retire(version)
            try? VersionWriter.removeStaging(staging)
            throw error
        }
        // Live (or recorded while pinned): what is left does not delay readers.
        let index = makeIndex()
        state.withLock { state in
            state.newest = (version, index)
            state.newestSeen = version
            state.lastManifest = next
        }
        try VersionWriter.removeStaging(staging)
        return .published(version, isCurrent: pin == nil)
    }

    /// Takes a version that failed to go live back out of `versions/` (unless `current` reached it
    /// after all), so a failed publish changes nothing that a later run would put live.
    private func retire(_ version: VersionID) {
        guard (try? currentVersion()) != version else { return }
        let garbage = layout.staging + "/failed-\(getpid())-\(version)"
        guard (try? FileSystem.rename(layout.version(version), to: garbage)) != nil else { return }
        // Its number is given again by the next publish.
        state.withLock { state in
            state.newest = nil
            state.newestSeen = nil
            state.lastManifest = nil
        }
        try? FileSystem.removeTree(garbage)
    }

    /// Where `current` must be: at the pinned version while pinned, else at the newest.
    func intendedCurrent() throws(StoreError) -> VersionID? {
        if let pinned = try PinFile(path: layout.pin).read() { return pinned.version }
        return try newestVersion()
    }

    /// A process killed after publishing a version (or writing a pin) but before swapping `current`
    /// left `current` behind; its work is complete and recorded, so the swap is finished here.
    private func completeInterruptedSwap() throws(StoreError) {
        let current = try currentVersion()
        guard let target = try intendedCurrent(), target != current, FileSystem.exists(layout.versionManifest(target)) else { return }
        let manifest = try manifest(of: target)
        let trees = TreeReader(layout: layout)
        guard manifest.folders.allSatisfy({ trees.isStored($0.folder.tree) }) else { return }
        let pinned = try pinnedVersion() != nil
        try makeDurable(target)
        try History(path: layout.history).append(HistoryEntry(
            action: pinned ? .rollback : .publish, from: current, to: target,
            reason: "completing the swap of a process that was stopped before it (current follows the \(pinned ? "pin" : "newest version"))"))
        CrashPoint.swap.reach()
        try CurrentLink(layout: layout).point(at: target)
    }

    /// Every publish appends a line to the history naming its version, and versions are
    /// numbered upwards, so the newest version has a line unless its publisher was stopped
    /// before writing it (while pinned: unpinned, the swap is completed with a line of its own),
    /// or a system crash lost it after the swap (the line is synced after it). Every process
    /// starts after such a crash: each store looks once, at its first lock.
    private func recordUnrecordedPublish() throws(StoreError) {
        guard !state.withLock({ $0.historyChecked }) else { return }
        if let newest = try newestVersion(), try newestRecordedVersion().map({ $0 < newest }) ?? true {
            try makeDurable(newest)
            try History(path: layout.history).append(HistoryEntry(
                action: .publish, from: nil, to: newest,
                reason: "recorded late: the history had no line for this version (its publisher was stopped, or a system crash lost the line)"))
        }
        state.withLock { $0.historyChecked = true }
    }

    // MARK: - What is on disk

    /// The newest version with a publish line in the history. A publish writes its line after
    /// the `syncfs` that follows its renames (`VersionWriter`), so this version and every older
    /// one are on disk; a newer one was moved in by a publisher stopped before its line.
    func newestRecordedVersion() throws(StoreError) -> VersionID? {
        try History(path: layout.history).lastEntry { $0.action == .publish }?.to
    }

    /// Syncs the file system before `version` goes live or gets a line, unless a publish line
    /// says it is on disk already: a stopped publisher's version is complete for every process,
    /// but a system crash could still take part of it.
    func makeDurable(_ version: VersionID) throws(StoreError) {
        guard try newestRecordedVersion().map({ $0 < version }) ?? true else { return }
        CrashPoint.sync.reach()
        try FileSystem.syncFileSystem(containing: root)
    }

    /// A system crash between a publish's renames and its `syncfs` can leave its version and new
    /// trees incomplete on disk (`VersionWriter`). So the first lock holder of each boot checks
    /// the store once: every version newer than the newest with a publish line is verified and
    /// taken out when it fails, and the trees no version reaches are removed (a later publish
    /// that writes an equal tree keeps the copy it finds).
    private func checkAfterRestart() throws(StoreError) {
        guard !state.withLock({ $0.restartChecked }) else { return }
        let boot = BootRecord(path: layout.boot)
        if !boot.isThisBoot {
            let recorded = try newestRecordedVersion()
            let current = try currentVersion()
            for version in try allVersions().reversed() where version != current && recorded.map({ version > $0 }) ?? true {
                var verifier = Verifier(layout: layout)
                let problem: String
                do {
                    try verifier.verify(version)
                    guard let first = verifier.problems.first else { continue }
                    problem = first.description
                } catch {
                    problem = error.description
                }
                retire(version)
                try History(path: layout.history).append(HistoryEntry(
                    action: .gc, from: version, to: version,
                    reason: "taken out after a restart: it was not whole on disk (\(problem))"))
            }
            let all = try allVersions()
            _ = try GarbageCollector(layout: layout, children: treeChildren).collect(versions: all, keeping: Set(all))
            try boot.record()
        }
        state.withLock { $0.restartChecked = true }
    }

    // MARK: - Spare folders

    /// Keeps spare copies of the newest version's folders (`SpareFolders`) from now on, for a
    /// long-running publisher (`quire watch`): `prepareSpareFolders` makes them.
    public func keepSpareFolders() throws(StoreError) {
        guard state.withLock({ $0.spares == nil }) else { return }
        let spares = try SpareFolders(staging: layout.staging)
        state.withLock { if $0.spares == nil { $0.spares = spares } }
    }

    /// Makes the missing spares of the newest version's folders, outer folders first (every
    /// save edits those); returns how many. Runs beside publishes, without the lock, and stops
    /// as soon as `shouldStop` says so.
    @discardableResult
    public func prepareSpareFolders(shouldStop: () -> Bool) -> Int {
        // The folders only, not the index: holding it would make the next publish copy it.
        let (spares, folders) = state.withLock { state in
            (state.spares, state.newest.map { Array($0.index.folders) } ?? [])
        }
        guard let spares, !folders.isEmpty else { return 0 }
        // Each folder's depth counted once, not in every comparison of the sort.
        var seen = Set<String>()
        let trees = folders
            .map { (depth: UTF8Scan.slashes(in: $0.key), folder: $0) }
            .sorted { ($0.depth, $0.folder.key) < ($1.depth, $1.folder.key) }
            .compactMap { seen.insert($0.folder.value.id).inserted ? (id: $0.folder.value.id, manifest: $0.folder.value.manifest) : nil }
        return spares.prepare(trees, from: layout, shouldStop: shouldStop)
    }

    /// Removes the spares and keeps none from now on.
    public func closeSpareFolders() {
        // Removed outside the lock: tens of thousands of links on a large site.
        let spares = state.withLock { state in
            defer { state.spares = nil }
            return state.spares
        }
        spares?.close()
    }

    /// Spares taken by delta publishes so far.
    public var spareFoldersTaken: Int { state.withLock { $0.spares?.taken.load(ordering: .relaxed) ?? 0 } }

    // MARK: - Status

    /// Replaces `status/status.json` (and any other status files) atomically.
    public func writeStatus(_ files: [String: [UInt8]]) throws(StoreError) {
        for (name, bytes) in files.sorted(by: { $0.key < $1.key }) {
            let components = name.split(separator: "/", omittingEmptySubsequences: false)
            guard !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
                throw StoreError("cannot write the status file '\(name)': empty, '.' and '..' path segments are not allowed")
            }
            var folder = layout.status
            for component in components.dropLast() {
                folder += "/" + component
                try FileSystem.makeDirectory(folder, ignoringExisting: true)
            }
            try FileSystem.replaceFile(layout.status + "/" + name, bytes)
        }
    }
}
