import Dispatch
import Foundation
import Glibc

/// Writes the planned trees that are not stored yet into a staging folder: one folder per tree
/// (files written or hard-linked, subfolders as `../<id>` links) plus its manifest beside it.
struct TreeWriter {
    let trees: TreeReader
    /// `staging/<pid>-<random>/trees`.
    let stagingTrees: String
    let spares: SpareFolders?
    let faults: FaultPlan

    /// The ids written, in an order where a tree comes after its subtrees.
    private(set) var written: [String] = []
    private var seen: Set<String> = []
    private var pending: [PlannedTree] = []
    /// Per pending tree, the parts of its manifest to write (`TreeManifest+Parts`): those it made,
    /// each once.
    private var pendingParts: [[TreeManifest]] = []
    private var seenParts: Set<String> = []

    init(trees: TreeReader, stagingTrees: String, spares: SpareFolders? = nil, faults: FaultPlan) {
        self.trees = trees
        self.stagingTrees = stagingTrees
        self.spares = spares
        self.faults = faults
    }

    /// Adds `tree` and the subtrees it needs that are not stored yet; `writeAll` writes them.
    mutating func add(_ tree: PlannedTree) {
        // A stored tree is complete with all its subtrees: equal id, equal contents, nothing to do.
        // A new one is not looked up in `trees/` (tens of thousands of names after many saves):
        // should an earlier version already store it, `moveIntoPlace` keeps that copy instead.
        guard !tree.isStored, !seen.contains(tree.id) else { return }
        seen.insert(tree.id)
        for subtree in tree.subtrees.values { add(subtree) }
        pending.append(tree)
        pendingParts.append(tree.manifest.newParts.filter { seenParts.insert($0.id).inserted })
        written.append(tree.id)
    }

    /// Writes the added trees, on both cores: each is a folder of its own, linking only to
    /// stored files and naming its subfolders, so none waits for another.
    func writeAll() throws(StoreError) {
        let (pending, pendingParts, stagingTrees, spares, faults) = (pending, pendingParts, stagingTrees, spares, faults)
        if pendingParts.contains(where: { !$0.isEmpty }) { try FileSystem.makeDirectory(stagingParts) }
        try FirstFailure.concurrentPerform(iterations: pending.count) { [stagingParts] index throws(StoreError) in
            for part in pendingParts[index] { try FileSystem.createFile(stagingParts + "/" + part.id + ".json", part.canonicalBytes()) }
            try Self.write(pending[index], into: stagingTrees, spares: spares, faults: faults)
        }
    }

    /// Parts of manifests, apart from the trees: a part's id may also be a tree's.
    private var stagingParts: String { stagingTrees + ".parts" }

    private static func write(
        _ tree: PlannedTree, into stagingTrees: String, spares: SpareFolders?, faults: FaultPlan
    ) throws(StoreError) {
        let folder = stagingTrees + "/" + tree.id
        faults.reach(.staging)
        let spare = try takeSpare(of: tree, as: folder, from: spares)
        let fromSpare = spare != nil
        let adopted = !fromSpare && adoptStagedFolder(of: tree, as: folder)
        if !adopted && !fromSpare { try FileSystem.makeDirectory(folder) }
        let target: DirectoryHandle
        if let spare { target = spare.folder } else { target = try DirectoryHandle(folder) }
        var stored = StoredEntries(target: target)
        var sameBytes = SameBytesLinks(target: target)
        for (name, source) in tree.files {
            switch source {
            case .bytes(let bytes): try sameBytes.write(name, bytes, sha256: tree.manifest.entry(named: name)?.sha256)
            case .staged(let blob): if !adopted { try FileSystem.rename(blob.path, to: folder + "/" + name) }
            case .storedFile(let path):
                let slash = path.lastIndex(of: "/") ?? path.startIndex
                try stored.link(String(path[path.index(after: slash)...]), in: path[..<slash], as: name, else: .copy)
            }
        }
        // An edited tree: what it keeps from its earlier tree, by name (a whole spare holds it
        // already, a half-made one the entries up to a name).
        if let base = tree.linkedFrom, spare?.isWhole != true {
            for entry in tree.manifest.entries
            where tree.files[entry.name] == nil && tree.subtrees[entry.name] == nil && spare?.lacks(entry.name) != false {
                let replacement: StoredEntries.Replacement =
                    switch entry.kind {
                    case .file: .copy
                    case .tree(let id): .subtreeLink(id)
                    }
                try stored.link(entry.name, in: base[...], as: entry.name, else: replacement)
            }
        }
        for (name, subtree) in tree.subtrees {
            if let path = tree.storedSubtreeLinks[name] {
                let slash = path.lastIndex(of: "/") ?? path.startIndex
                try stored.link(String(path[path.index(after: slash)...]), in: path[..<slash], as: name, else: .subtreeLink(subtree.id))
            } else {
                try target.symbolicLink(SiteLayout.subtreeTarget(subtree.id), as: name)
            }
        }
        try FileSystem.createFile(folder + ".json", tree.manifest.canonicalBytes())
    }

    /// A spare taken for a tree: its folder, and how much of the earlier tree it holds.
    private struct TakenSpare {
        var folder: DirectoryHandle
        var taken: SpareFolders.Taken

        var isWhole: Bool {
            if case .whole = taken { true } else { false }
        }

        /// Whether it lacks the earlier tree's entry `name` (a half-made spare holds the entries
        /// up to a name, in manifest order: the order it links them in).
        func lacks(_ name: String) -> Bool {
            switch taken {
            case .whole: false
            case .partial(let through): through.map { $0.utf8Precedes(name) } ?? true
            }
        }
    }

    /// Folders up to this many entries have their spare counted before it is used (a stray or a
    /// missing entry is found); a larger one is used as made: whole, or never renamed to its
    /// name (counting 10,000 entries took as long as the rest of a save).
    static let countedSpareEntries = 2000

    /// An edited tree's folder made from the spare copy of its earlier tree: the entries it
    /// replaces or drops are removed (a cost of the change, not of the folder), and the caller
    /// writes the new ones through the handle returned. Nil when there is no spare, or it does
    /// not hold as many entries as the earlier tree (then it is removed).
    private static func takeSpare(of tree: PlannedTree, as folder: String, from spares: SpareFolders?) throws(StoreError) -> TakenSpare? {
        guard let spares, let base = tree.linkedFrom, let baseManifest = tree.linkedManifest, let slash = base.lastIndex(of: "/"),
            let taken = spares.take(String(base[base.index(after: slash)...]), manifest: baseManifest, as: folder)
        else { return nil }
        let target = try DirectoryHandle(folder)
        let spare = TakenSpare(folder: target, taken: taken)
        if spare.isWhole, tree.linkedEntryCount <= countedSpareEntries, try target.entryCount() != tree.linkedEntryCount {
            try FileSystem.removeTree(folder)
            return nil
        }
        // What the tree drops or changes goes (a half-made spare may not hold it yet).
        for name in tree.droppedNames { try target.remove(name, ifPresent: !spare.isWhole) }
        for name in tree.files.names { try target.remove(name, ifPresent: true) }
        for name in tree.subtrees.keys { try target.remove(name, ifPresent: true) }
        return spare
    }

    /// When the tree's staged files are all of one staging folder, under their names there, and
    /// that folder holds nothing else, it becomes the tree's folder: one rename, not one per file.
    private static func adoptStagedFolder(of tree: PlannedTree, as folder: String) -> Bool {
        var first: (blob: StagedBlob, outputFolder: Substring)?
        var count = 0
        for (name, source) in tree.files {
            guard case .staged(let blob) = source else { continue }
            // Its name, of one output folder of one staging folder, compared in place by bytes:
            // a cold build's folder of 10,000 pages asks this of every file.
            let (outputFolder, blobName) = StagingBlobs.split(blob.outputPath)
            guard blobName.utf8.elementsEqual(name.utf8),
                first.map({ $0.blob.staging == blob.staging && $0.outputFolder.utf8.elementsEqual(outputFolder.utf8) }) ?? true
            else { return false }
            if first == nil { first = (blob, outputFolder) }
            count += 1
        }
        guard let first else { return false }
        let blobFolder = StagingBlobs.location(of: first.blob.outputPath, in: first.blob.staging).folder
        guard (try? DirectoryHandle(blobFolder).entryCount()) == count else { return false }
        return (try? FileSystem.rename(blobFolder, to: folder)) != nil
    }

    /// Moves the staged trees into `trees/`: the parts and folder first, the manifest last. An equal tree
    /// stored already (by an earlier version, or left by a crash after its folder) keeps its
    /// folder: `rename` never replaces a folder that has entries, and every tree has one. The
    /// manifest is replaced by the same bytes (its name is their hash). No lookup comes first:
    /// in a `trees/` of many names, each costs as much as the rename.
    func moveIntoPlace() throws(StoreError) {
        for (id, parts) in zip(written, pendingParts) {
            let staged = stagingTrees + "/" + id
            faults.reach(.move)
            // A manifest's parts before it: with the manifest, a tree is stored.
            for part in parts { try FileSystem.rename(stagingParts + "/" + part.id + ".json", to: trees.layout.treeManifest(part.id)) }
            do {
                try FileSystem.rename(staged, to: trees.layout.tree(id))
            } catch  where error.errorNumber == ENOTEMPTY || error.errorNumber == EEXIST {}
            try FileSystem.rename(staged + ".json", to: trees.layout.treeManifest(id))
        }
    }
}

/// Files of one new tree with the same bytes (every page's preview shell at one depth) written
/// once and hard-linked under their other names: a folder of 10,000 previews costs about 160
/// files, not 10,000 (their inodes, and on a disk their blocks, synced before the swap). At most
/// `namesPerFile` names share an inode, so trees that keep them across many versions stay far
/// from the file system's link limit (65,000 on ext4).
private struct SameBytesLinks {
    static let namesPerFile = 64

    let target: DirectoryHandle
    /// Per SHA-256, a name written with those bytes and how many names share its inode.
    private var written: [Digest: (name: String, names: Int)] = [:]

    init(target: DirectoryHandle) { self.target = target }

    mutating func write(_ name: String, _ bytes: [UInt8], sha256: Digest?) throws(StoreError) {
        if let sha256, let first = written[sha256], first.names < Self.namesPerFile {
            do {
                try target.hardLink(from: target, first.name, as: name)
                written[sha256]?.names += 1
                return
            } catch  where error.errorNumber == EMLINK {}
        }
        try target.createFile(name, bytes)
        if let sha256 { written[sha256] = (name, 1) }
    }
}

/// Hard links of entries stored in earlier trees into the folder being written, through a
/// few open handles of their folders (entries usually come from one or two earlier trees).
private struct StoredEntries {
    /// What to make instead when the file system's link limit for one inode is reached.
    enum Replacement {
        /// Another copy of the file.
        case copy
        /// A new `../<id>` link to the subfolder's tree.
        case subtreeLink(String)
    }

    let target: DirectoryHandle
    private var folders: [Substring: DirectoryHandle] = [:]

    init(target: DirectoryHandle) { self.target = target }

    /// Links `folder/sourceName` (a file, or a subfolder link, which is linked itself, not
    /// followed) as `name`.
    mutating func link(_ sourceName: String, in folder: Substring, as name: String, else replacement: Replacement) throws(StoreError) {
        do {
            if folders[folder] == nil && folders.count < 32 { folders[folder] = try DirectoryHandle(String(folder)) }
            if let source = folders[folder] {
                try target.hardLink(from: source, sourceName, as: name)
            } else {
                try FileSystem.hardLink(folder + "/" + sourceName, at: target.path + "/" + name)
            }
        } catch  where error.errorNumber == EMLINK {
            switch replacement {
            case .copy: try target.createFile(name, FileSystem.readFile(folder + "/" + sourceName))
            case .subtreeLink(let id): try target.symbolicLink(SiteLayout.subtreeTarget(id), as: name)
            }
        }
    }
}

extension TreeManifest.Entry {
    /// The SHA-256 of a file's bytes; nil for a subfolder.
    fileprivate var sha256: Digest? {
        if case .file(let file) = kind { file.sha256 } else { nil }
    }
}
