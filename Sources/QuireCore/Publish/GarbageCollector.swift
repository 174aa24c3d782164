import Foundation
import Glibc

/// Removes old versions, then every tree no kept version reaches (mark and sweep). Things
/// disappear by rename into the staging folder first, so a crash never leaves half a version or
/// a tree whose manifest says it is complete; the next lock holder sweeps the staging folder.
struct GarbageCollector {
    let layout: SiteLayout
    /// The subfolder trees of each tree seen so far: trees never change, so what a store has
    /// read once it never reads again, and marking after a publish reads only the new trees.
    let children: TreeChildren
    let faults: FaultPlan

    /// The versions `gc(keep:)` keeps: the newest `keep`, `current`, the pinned one, and all newer than current.
    static func kept(_ versions: [VersionID], keep: Int, current: VersionID?, pinned: VersionID?) -> Set<VersionID> {
        var kept = Set(versions.suffix(max(keep, 1)))
        if let current {
            kept.insert(current)
            kept.formUnion(versions.filter { $0 > current })
        }
        if let pinned { kept.insert(pinned) }
        return kept
    }

    /// `recycle` is offered each tree folder it removes, once out of `trees/`; a folder it takes
    /// (returning true, having moved it) is not deleted. `removing` deletes what was taken out of
    /// the store, in its staging folder, at the end. `sweepingAll`: every tree in `trees/` no
    /// kept version reaches goes, else only those the removed versions reached (retention
    /// after each save: `trees/` holds thousands of trees, listed for a handful; what a killed
    /// publisher left there waits for a whole sweep).
    func collect(
        versions: [VersionID], keeping kept: Set<VersionID>, sweepingAll: Bool = true,
        recycle: (_ id: String, _ folder: String) -> Bool = { _, _ in false },
        removing: (_ folder: String) throws(StoreError) -> Void = { folder throws(StoreError) in try FileSystem.removeTree(folder) }
    ) throws(StoreError) -> CollectionReport {
        faults.reach(.mark)
        let garbage = layout.staging + "/gc-\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        try FileSystem.makeDirectory(garbage)
        let removed = versions.filter { !kept.contains($0) }
        // What the removed versions reach, while their manifests are in place (a whole sweep
        // when one cannot be read).
        let candidates = sweepingAll ? nil : try? reachable(from: removed)
        for version in removed { try FileSystem.rename(layout.version(version), to: garbage + "/" + version.description) }

        let reachable = try reachable(from: kept.sorted())

        // Sweep: the manifest goes first, so an interrupted sweep leaves a tree that is not "stored".
        var removedTrees = 0
        let stored: [String]
        if let candidates {
            stored = candidates.subtracting(reachable).flatMap { [$0, $0 + ".json"] }.filter { FileSystem.exists(layout.trees + "/" + $0) }
        } else {
            stored = try FileSystem.list(layout.trees, sorted: false)
        }
        for id in stored where !id.hasSuffix(".json") && !reachable.contains(id) {
            faults.reach(.sweep)
            if FileSystem.exists(layout.treeManifest(id)) { try FileSystem.remove(layout.treeManifest(id)) }
            try FileSystem.rename(layout.tree(id), to: garbage + "/" + id)
            _ = recycle(id, garbage + "/" + id)
            children.forget(id)
            removedTrees += 1
        }
        // Unreachable manifests left without their folder (a folder removed by hand), and parts
        // of manifests no kept version reaches.
        for name in stored where name.hasSuffix(".json") && !reachable.contains(String(name.dropLast(5))) {
            if FileSystem.exists(layout.trees + "/" + name) { try FileSystem.remove(layout.trees + "/" + name) }
            children.forget(String(name.dropLast(5)))
        }
        try FileSystem.syncDirectory(layout.versions)
        try FileSystem.syncDirectory(layout.trees)
        faults.reach(.cleanup)
        try removing(garbage)
        return CollectionReport(removedVersions: removed, removedTrees: removedTrees)
    }

    /// Mark: every tree (and part of a manifest) the versions reach, through the manifests.
    func reachable(from versions: [VersionID]) throws(StoreError) -> Set<String> {
        var reachable: Set<String> = []
        for version in versions {
            let path = layout.versionManifest(version)
            let manifest = try VersionManifest(parsing: FileSystem.readFile(path), path: path)
            for entry in manifest.folders { try mark(entry.folder.tree, reachable: &reachable) }
        }
        return reachable
    }

    /// A tree, its parts (`trees/<part>.json`, kept by the second sweep) and its subtrees.
    private func mark(_ id: String, reachable: inout Set<String>) throws(StoreError) {
        guard reachable.insert(id).inserted else { return }
        let tree = try children.of(id, layout: layout)
        reachable.formUnion(tree.parts)
        for child in tree.subtrees { try mark(child, reachable: &reachable) }
    }
}

/// The subfolder trees and the parts of each tree a store has read (see `GarbageCollector.children`).
final class TreeChildren: @unchecked Sendable {
    // NSLock rather than Mutex: ThreadSanitizer sees its ordering (see StageClock).
    private let lock = NSLock()
    typealias Children = (subtrees: [String], parts: [String])
    private var learned: [String: Children] = [:]
    /// The subtrees of each part of a manifest in parts seen so far: a folder's next tree shares
    /// all its parts but the few an edit touched, and a folder of 100,000 entries has 800.
    private var partSubtrees: [String: [String]] = [:]

    func of(_ id: String, layout: SiteLayout) throws(StoreError) -> Children {
        if let children = lock.withLock({ learned[id] }) { return children }
        let children = children(of: try TreeManifest.read(id, layout: layout))
        lock.withLock { learned[id] = children }
        return children
    }

    /// Notes the children of trees whose manifests are in memory already (a version just
    /// published): marking then reads no manifest from disk, where a folder of 10,000 entries
    /// takes tens of milliseconds to parse.
    func learn(_ trees: some Sequence<(id: String, manifest: TreeManifest)>) {
        let unknown = lock.withLock { trees.filter { learned[$0.id] == nil } }
        guard !unknown.isEmpty else { return }
        let read = unknown.map { ($0.id, children(of: $0.manifest)) }
        lock.withLock { for (id, children) in read { learned[id] = children } }
    }

    /// The children of trees a restarted watcher's cache recorded (`RestartCache`): a tree id
    /// names its manifest's bytes, so what they were is what they are.
    func learn(_ children: [String: Children]) {
        lock.withLock { learned.merge(children) { current, _ in current } }
    }

    /// Every tree's children read or learned so far.
    var known: [String: Children] { lock.withLock { learned } }

    /// Whether the children of tree `id` are known (read or learned).
    func knows(_ id: String) -> Bool { lock.withLock { learned[id] != nil } }

    /// A tree or part that is gone (swept) is never asked for again.
    func forget(_ id: String) {
        lock.withLock {
            learned[id] = nil
            partSubtrees[id] = nil
        }
    }

    /// The subtrees of a manifest in parts are its parts' subtrees, each part looked at once.
    private func children(of manifest: TreeManifest) -> Children {
        guard !manifest.parts.isEmpty else { return (Self.subtrees(of: manifest.listed), []) }
        let known = lock.withLock { manifest.parts.map { partSubtrees[$0.id] } }
        var subtrees: [String] = []
        var found: [(id: String, subtrees: [String])] = []
        for (part, known) in zip(manifest.parts, known) {
            let inPart = known ?? Self.subtrees(of: part.listed)
            if known == nil { found.append((part.id, inPart)) }
            subtrees += inPart
        }
        if !found.isEmpty { lock.withLock { for part in found { partSubtrees[part.id] = part.subtrees } } }
        return (subtrees, manifest.parts.map(\.id))
    }

    private static func subtrees(of entries: [TreeManifest.Entry]) -> [String] {
        entries.compactMap { entry in
            guard case .tree(let child) = entry.kind else { return nil }
            return child
        }
    }
}
