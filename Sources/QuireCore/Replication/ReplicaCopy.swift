import Glibc

/// Brings one destination to hold a snapshot, checks it, and later points its `current` and
/// trims it. A destination is only ever changed in an order that leaves its `current` on a whole
/// version: trees before the versions that reach them, a tree's manifest (`trees/<id>.json`,
/// which says the tree is whole) after its files, `current` after both, removals after `current`.
struct ReplicaCopy {
    enum Outcome: Equatable {
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
    /// The push lock's descriptor, which every rsync holds too.
    let lock: Int32?
    private var rsync: Rsync { Rsync(destination: destination, lock: lock) }
    /// What the destination held before the copy: versions, and trees by name (`<id>`, `<id>.json`).
    private(set) var heldVersions: Set<String> = []
    private(set) var heldTrees: Set<String> = []
    /// Temporary links left by flips killed before their rename.
    private(set) var strayLinks: Set<String> = []

    init(destination: ReplicaDestination, site: String, origin: String, work: String, lock: Int32?) {
        self.destination = destination
        self.lock = lock
        self.site = site
        self.origin = origin.hasPrefix("/") ? origin : "./" + origin
        self.work = work
    }

    mutating func copy(_ snapshot: PushSnapshot) throws(StoreError) -> Outcome {
        if destination.isMissingFolder { return .unreachable("no such folder") }
        try FileSystem.makeDirectories(skeleton + "/versions")
        try FileSystem.makeDirectory(skeleton + "/trees", ignoringExisting: true)
        var listing = try list()
        if listing.status == Rsync.partialTransfer {
            // No site folder yet: made on a first push (rsync makes one missing level only).
            let made = try rsync.run(["-r", work + "/skeleton/", destination.rsyncRoot])
            if let problem = problem(made) { return problem }
            listing = try list()
        }
        if let problem = problem(listing) { return problem }
        let names = Rsync.names(listing.output)
        heldTrees = Set(names.filter { $0.hasPrefix("trees/") }.map { String($0.dropFirst("trees/".count)) })
        heldVersions = Set(names.filter { $0.hasPrefix("versions/") }.map { String($0.dropFirst("versions/".count)) })
        strayLinks = Set(names.filter { $0.hasPrefix(".current.") })

        // Trees the destination lacks, or holds without the manifest that says they are whole.
        // Every transfer runs from the site's folder to the site's folder: an rsync daemon
        // without chroot cuts link targets that climb above the folder it writes into. What a gc
        // on the origin (keep:) removes meanwhile is skipped: `ReplicaPush` checks that the
        // version `current` is to name was not among it.
        let missing = snapshot.trees.filter { !heldTrees.contains($0 + ".json") }.sorted()
        // A large folder's manifest lists parts: they go before the manifests that name them.
        let missingParts = snapshot.parts.filter { !heldTrees.contains($0 + ".json") && !snapshot.trees.contains($0) }.sorted()
        if !missing.isEmpty {
            // Trees are sent once: a destination that would store their links changed must not get them.
            switch try ReplicaProbe(destination: destination, site: site, work: work + "/probe", lock: lock).run() {
            case .ready: break
            case .unreachable(let reason): return .unreachable(reason)
            case .failed(let reason): return .failed(reason)
            }
            let folders = try listFile("trees", missing.map { "trees/" + $0 + "/" })
            if let problem = try transfer(["-rlpt", "--delete", "--ignore-missing-args", "--files-from=" + folders]) { return problem }
            if !missingParts.isEmpty {
                let parts = try listFile("parts", missingParts.map { "trees/" + $0 + ".json" })
                if let problem = try transfer(["-lpt", "--ignore-missing-args", "--files-from=" + parts]) { return problem }
            }
            let manifests = try listFile("manifests", missing.map { "trees/" + $0 + ".json" })
            if let problem = try transfer(["-lpt", "--ignore-missing-args", "--files-from=" + manifests]) { return problem }
        }
        // Version folders are a manifest and a few links: all of them go every time.
        let versionList = try listFile("versions", snapshot.versions.map { "versions/" + $0.description + "/" })
        if let problem = try transfer(["-rlpt", "--delete", "--ignore-missing-args", "--files-from=" + versionList]) { return problem }

        // The check: what was sent now compared by content, and every version folder.
        let checked = try listFile(
            "check",
            missing.flatMap { ["trees/" + $0 + "/", "trees/" + $0 + ".json"] }
                + (missing.isEmpty ? [] : missingParts.map { "trees/" + $0 + ".json" })
                + snapshot.versions.map { "versions/" + $0.description + "/" })
        let comparison = try rsync.run([
            "-rlpt", "--dry-run", "--itemize-changes", "--checksum", "--ignore-missing-args",
            "--files-from=" + checked, origin + "/", destination.rsyncPath(site: site),
        ])
        if let problem = problem(comparison, vanishing: true) { return problem }
        let differences = comparison.output.split(separator: "\n").filter(Rsync.isItemized)
        guard differences.isEmpty else {
            let shown = differences.prefix(3).joined(separator: "; ")
            // Only links differ: the destination rewrote the links it received (a daemon's munging).
            if differences.allSatisfy({ $0.dropFirst().hasPrefix("L") }) {
                return .failed("it changes the symbolic links it receives (\(shown)): " + ReplicaLinks.fix(destination))
            }
            return .failed("the copy differs from the origin after rsync: \(shown)")
        }
        // rsync compares links as the destination lists them, which hides a daemon's munging.
        return try readBack(snapshot.current, current: false)
    }

    /// Reads back the links of `version`'s folder (and with `current`, the link `current`) as the
    /// destination stored them: each must hold what the origin's holds.
    func readBack(_ version: VersionID, current: Bool) throws(StoreError) -> Outcome {
        let folder = SiteLayout.currentTarget(version)
        let listing = try rsync.run([
            "--list-only", "-rl", "--include=/current", "--include=/versions/", "--include=/\(folder)/",
            "--include=/\(folder)/*", "--exclude=*", destination.rsyncPath(site: site),
        ])
        if let problem = problem(listing) { return problem }
        let links = ReplicaLinks(listing: listing.output)
        var expected: [(path: String, target: String)] = current ? [("current", folder)] : []
        // A version a gc on the origin removed meanwhile is not checked: `ReplicaPush` copies again.
        let originFolder = origin + "/" + folder
        for name in FileSystem.exists(originFolder) ? try FileSystem.list(originFolder) : [] {
            let path = originFolder + "/" + name
            guard let info = try FileSystem.status(path), FileSystem.isSymbolicLink(info) else { continue }
            expected.append((folder + "/" + name, try FileSystem.readLink(path)))
        }
        for (path, target) in expected {
            if let problem = links.problem(path, expecting: target, on: destination) { return .failed(problem) }
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
        if let problem = problem(flipped) { return problem }
        return try readBack(version, current: true)
    }

    /// Removes what the origin no longer has (its `keep:`), once `current` names a kept version:
    /// versions and trees' manifests first (and links a killed flip left), then the trees' folders
    /// and anything else left in trees/. Each run deletes from the site's folder what its patterns
    /// name and an empty site folder lacks; everything else is excluded, so kept.
    func trim(to snapshot: PushSnapshot) throws(StoreError) -> Outcome {
        let keptVersions = Set(snapshot.versions.map(\.description))
        let oldVersions = heldVersions.subtracting(keptVersions).sorted()
        let oldTrees = heldTrees.filter { name in
            let id = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
            return !snapshot.trees.contains(id) && !(name.hasSuffix(".json") && snapshot.parts.contains(id))
        }
        let manifests = oldTrees.filter { $0.hasSuffix(".json") }.sorted()
        let folders = oldTrees.filter { !$0.hasSuffix(".json") }.sorted()
        let steps: [[String]] = [
            strayLinks.sorted().map { "/" + $0 } + oldVersions.flatMap { ["/versions/" + $0, "/versions/" + $0 + "/***"] }
                + manifests.map { "/trees/" + $0 },
            folders.flatMap { ["/trees/" + $0, "/trees/" + $0 + "/***"] },
        ]
        for (index, patterns) in steps.enumerated() where !patterns.isEmpty {
            let rules = try listFile("remove-\(index)", ["/versions/", "/trees/"] + patterns)
            let removed = try rsync.run([
                "-r", "--delete", "--include-from=" + rules, "--exclude=*", skeleton + "/",
                destination.rsyncPath(site: site),
            ])
            if let problem = problem(removed) { return problem }
        }
        return .whole
    }

    /// What the destination's site folder holds in trees/ and versions/, and the temporary links
    /// of flips killed before their rename (`.current.<random>`), in one listing.
    private func list() throws(StoreError) -> Rsync.Outcome {
        try rsync.run([
            "--list-only", "-r", "--include=/trees/", "--include=/versions/", "--include=/trees/*", "--include=/versions/*",
            "--include=/.current.*", "--exclude=*", destination.rsyncPath(site: site),
        ])
    }

    /// An empty site folder (`versions/`, `trees/`): made on the destination by a first push, and
    /// the side old things are missing from when they are removed.
    private var skeleton: String { work + "/skeleton/" + site }

    /// rsync from the origin's site folder to the destination's.
    private func transfer(_ options: [String]) throws(StoreError) -> Outcome? {
        problem(try rsync.run(options + [origin + "/", destination.rsyncPath(site: site)]), vanishing: true)
    }

    /// `vanishing`: files a gc on the origin removed while rsync read them are no problem.
    private func problem(_ outcome: Rsync.Outcome, vanishing: Bool = false) -> Outcome? {
        if outcome.succeeded || (vanishing && outcome.vanished) { return nil }
        return outcome.isUnreachable ? .unreachable(outcome.message) : .failed(outcome.message)
    }

    private func listFile(_ name: String, _ lines: [String]) throws(StoreError) -> String {
        let path = work + "/" + name + ".list"
        if FileSystem.exists(path) { try FileSystem.remove(path) }
        try FileSystem.createFile(path, Array(lines.map { $0 + "\n" }.joined().utf8))
        return path
    }
}
