import Glibc
import QuireModel

/// Publishes one version folder and its new trees: stage everything under
/// `staging/<pid>-<random>/`, rename it into `trees/` and `versions/`, then sync the file system
/// once, which makes the files and the renames durable together. On failure the staging folder
/// is removed and the version is not in `versions/` (`current` is swapped later, by the caller).
///
/// The renames come before the sync, not after it with a sync of their folders of their own:
/// that is one device barrier fewer per save. Staged whole, what they
/// move in is complete for every process; only a system crash before the sync can leave it
/// incomplete on disk, and the caller's history line, written after the sync, tells which
/// versions are past it (`StoreRecovery.checkAfterRestart`, `StoreRecovery.makeDurable`).
struct VersionWriter {
    let layout: SiteLayout
    /// Pre-linked copies of earlier trees, for the trees that edit them.
    var spares: SpareFolders?
    let faults: FaultPlan

    /// Returns the staging folder, left with empty folders only: the caller removes it
    /// (`removeStaging`) once the version is live, so the swap does not wait for it.
    func write(_ manifest: VersionManifest, planned: [(name: String, tree: PlannedTree)], buildRecord: JSONObject) throws(StoreError)
        -> String
    {
        let staging = layout.staging + "/\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        do throws(StoreError) {
            faults.reach(.staging)
            try FileSystem.makeDirectory(staging)
            try FileSystem.makeDirectory(staging + "/trees")
            var trees = TreeWriter(trees: TreeReader(layout: layout), stagingTrees: staging + "/trees", spares: spares, faults: faults)
            for entry in planned { trees.add(entry.tree) }
            try trees.writeAll()

            let folder = staging + "/version"
            try FileSystem.makeDirectory(folder)
            try FileSystem.createFile(folder + "/manifest.json", manifest.bytes)
            try FileSystem.createFile(folder + "/build.json", JSONWriter(pretty: true).bytes(.object(buildRecord)))
            for entry in manifest.folders {
                try FileSystem.symbolicLink(SiteLayout.folderTarget(entry.folder.tree), at: folder + "/" + entry.name)
            }

            try trees.moveIntoPlace()
            faults.reach(.move)
            try FileSystem.rename(folder, to: layout.version(manifest.version))
            do throws(StoreError) {
                faults.reach(.sync)
                try FileSystem.syncFileSystem(containing: layout.root)
            } catch {
                // Not durable: taken back out, or the next lock holder would put it live. Its
                // new trees stay, unreached: complete, and on disk with the next sync.
                _ = try? FileSystem.rename(layout.version(manifest.version), to: folder)
                throw error
            }
        } catch {
            try? FileSystem.removeTree(staging)
            throw error
        }
        return staging
    }

    /// A crash before this leaves the folder to the next lock holder's cleanup.
    static func removeStaging(_ staging: String, faults: FaultPlan) throws(StoreError) {
        faults.reach(.cleanup)
        try FileSystem.removeTree(staging)
    }
}
