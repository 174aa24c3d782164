import Glibc

/// Brings one destination to hold a snapshot, checks it, and later points its `current` and
/// trims it. A destination is only ever changed in an order that leaves its `current` on a whole
/// version: trees before the versions that reach them, a tree's manifest (`trees/<id>.json`,
/// which says the tree is whole) after its files, `current` after both, removals after `current`.
struct ReplicaCopy {
    enum Outcome {
        case whole
        case unreachable(String)
        case failed(String)
    }

    let destination: ReplicaDestination
    let site: String
    /// `dist/<site>` on the origin.
    let origin: String
    /// A private scratch folder for this destination's file lists.
    let work: String
    private var rsync: Rsync { Rsync(destination: destination) }
    /// What the destination held before the copy: versions, and trees by name (`<id>`, `<id>.json`).
    private(set) var heldVersions: Set<String> = []
    private(set) var heldTrees: Set<String> = []

    init(destination: ReplicaDestination, site: String, origin: String, work: String) {
        self.destination = destination
        self.site = site
        self.origin = origin.hasPrefix("/") ? origin : "./" + origin
        self.work = work
    }

    mutating func copy(_ snapshot: PushSnapshot) throws(StoreError) -> Outcome {
        if destination.isMissingFolder { return .unreachable("no such folder") }
        // The site's folders, made on a first push (rsync makes one missing level only).
        let skeleton = work + "/skeleton"
        try FileSystem.makeDirectories(skeleton + "/" + site + "/versions")
        try FileSystem.makeDirectory(skeleton + "/" + site + "/trees", ignoringExisting: true)
        let made = try rsync.run(["-r", skeleton + "/", destination.rsyncRoot])
        if let problem = problem(made) { return problem }

        let trees = try rsync.list(destination.rsyncPath(site: site, "trees/"))
        if let problem = problem(trees) { return problem }
        heldTrees = Set(Rsync.names(trees.output))
        let versions = try rsync.list(destination.rsyncPath(site: site, "versions/"))
        if let problem = problem(versions) { return problem }
        heldVersions = Set(Rsync.names(versions.output))

        // Trees the destination lacks, or holds without the manifest that says they are whole.
        // Every transfer runs from the site's folder to the site's folder: an rsync daemon
        // without chroot cuts link targets that climb above the folder it writes into.
        let missing = snapshot.trees.filter { !heldTrees.contains($0 + ".json") }.sorted()
        if !missing.isEmpty {
            let folders = try listFile("trees", missing.map { "trees/" + $0 + "/" })
            if let problem = try transfer(["-rlpt", "--delete", "--files-from=" + folders]) { return problem }
            let manifests = try listFile("manifests", missing.map { "trees/" + $0 + ".json" })
            if let problem = try transfer(["-lpt", "--files-from=" + manifests]) { return problem }
        }
        // Version folders are a manifest and a few links: all of them go every time.
        let versionList = try listFile("versions", snapshot.versions.map { "versions/" + $0.description + "/" })
        if let problem = try transfer(["-rlpt", "--delete", "--files-from=" + versionList]) { return problem }

        // The check: what was sent now compared by content, and every version folder.
        let checked = try listFile("check", missing.flatMap { ["trees/" + $0 + "/", "trees/" + $0 + ".json"] }
            + snapshot.versions.map { "versions/" + $0.description + "/" })
        let comparison = try rsync.run(["-rlpt", "--dry-run", "--itemize-changes", "--checksum", "--files-from=" + checked,
                                        origin + "/", destination.rsyncPath(site: site)])
        if let problem = problem(comparison) { return problem }
        let differences = comparison.output.split(separator: "\n").filter { !$0.isEmpty }
        guard differences.isEmpty else {
            return .failed("the copy differs from the origin after rsync: \(differences.prefix(3).joined(separator: "; "))")
        }
        return .whole
    }

    /// Points the destination's `current` at `version` (rsync renames a new link over the old one).
    func flip(to version: VersionID) throws(StoreError) -> Outcome {
        let folder = work + "/link"
        try FileSystem.makeDirectory(folder, ignoringExisting: true)
        if FileSystem.exists(folder + "/current") { try FileSystem.remove(folder + "/current") }
        try FileSystem.symbolicLink(SiteLayout.currentTarget(version), at: folder + "/current")
        let flipped = try rsync.run(["-l", folder + "/current", destination.rsyncPath(site: site)])
        return problem(flipped) ?? .whole
    }

    /// Removes what the origin no longer has (its `keep:`), once `current` names a kept version:
    /// versions first, then trees' manifests, then their folders.
    func trim(to snapshot: PushSnapshot) throws(StoreError) -> Outcome {
        let keptVersions = Set(snapshot.versions.map(\.description))
        let oldVersions = heldVersions.subtracting(keptVersions).sorted()
        let oldTrees = heldTrees.filter { name in
            !snapshot.trees.contains(name.hasSuffix(".json") ? String(name.dropLast(5)) : name)
        }
        let steps: [(folder: String, patterns: [String])] = [
            ("versions/", oldVersions.map { "/" + $0 + "/***" }),
            ("trees/", oldTrees.filter { $0.hasSuffix(".json") }.sorted().map { "/" + $0 }),
            ("trees/", oldTrees.filter { !$0.hasSuffix(".json") }.sorted().map { "/" + $0 + "/***" }),
        ]
        let empty = work + "/empty"
        try FileSystem.makeDirectory(empty, ignoringExisting: true)
        for (index, step) in steps.enumerated() where !step.patterns.isEmpty {
            let patterns = try listFile("remove-\(index)", step.patterns)
            let removed = try rsync.run(["-r", "--delete", "--include-from=" + patterns, "--exclude=*", empty + "/",
                                         destination.rsyncPath(site: site, step.folder)])
            if let problem = problem(removed) { return problem }
        }
        return .whole
    }

    /// rsync from the origin's site folder to the destination's.
    private func transfer(_ options: [String]) throws(StoreError) -> Outcome? {
        problem(try rsync.run(options + [origin + "/", destination.rsyncPath(site: site)]))
    }

    private func problem(_ outcome: Rsync.Outcome) -> Outcome? {
        if outcome.succeeded { return nil }
        return outcome.isUnreachable ? .unreachable(outcome.message) : .failed(outcome.message)
    }

    private func listFile(_ name: String, _ lines: [String]) throws(StoreError) -> String {
        let path = work + "/" + name + ".list"
        if FileSystem.exists(path) { try FileSystem.remove(path) }
        try FileSystem.createFile(path, Array(lines.map { $0 + "\n" }.joined().utf8))
        return path
    }
}
