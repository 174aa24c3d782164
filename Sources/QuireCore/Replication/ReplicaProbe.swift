/// `quire push --check`: what a push would find on a destination, without pushing. It sends a
/// probe link (`.quire-probe-<site>`, next to the site's folder), reads it back as a push reads
/// `current` back, removes it, and reads the site's `current`.
public struct ReplicaProbe {
    public enum Outcome: Sendable, Equatable {
        /// Reached, writable, links kept; the version its `current` names (nil: never pushed).
        case ready(VersionID?)
        case unreachable(String)
        case failed(String)
    }

    let destination: ReplicaDestination
    let site: String
    /// A private scratch folder.
    let work: String
    let lock: Int32?
    private var rsync: Rsync { Rsync(destination: destination, lock: lock) }
    private var name: String { ".quire-probe-" + site }
    /// A target as long as a version's, so a destination that stores it changed shows it.
    static let target = "versions/probe"

    func run() throws(StoreError) -> Outcome {
        if destination.isMissingFolder { return .unreachable("no such folder") }
        if FileSystem.exists(work) { try FileSystem.removeTree(work) }
        try FileSystem.makeDirectories(work + "/empty")
        try FileSystem.symbolicLink(Self.target, at: work + "/" + name)
        if let problem = outcome(try rsync.run(["-l", work + "/" + name, destination.rsyncRoot])) { return problem }
        let listing = try rsync.run([
            "--list-only", "-rl", "--include=/" + name, "--include=/\(site)/", "--include=/\(site)/current", "--exclude=*",
            destination.rsyncRoot,
        ])
        let removed = try rsync.run(["-r", "--delete", "--include=/" + name, "--exclude=*", work + "/empty/", destination.rsyncRoot])
        if let problem = outcome(listing) ?? outcome(removed) { return problem }
        let links = ReplicaLinks(listing: listing.output)
        if let problem = links.problem(name, expecting: Self.target, on: destination) { return .failed(problem) }
        guard let current = links.links[site + "/current"] else { return .ready(nil) }
        let version = current.target.hasPrefix("versions/") ? VersionID(String(current.target.dropFirst("versions/".count))) : nil
        guard let version, current.isUnchanged else {
            return .failed("its `current` holds '\(current.target)' (\(current.storedBytes) bytes), not a version: push again")
        }
        return .ready(version)
    }

    private func outcome(_ result: Rsync.Outcome) -> Outcome? {
        if result.succeeded { return nil }
        return result.isUnreachable ? .unreachable(result.message) : .failed(result.message)
    }
}

extension ReplicaPush {
    /// Probes each destination in turn, holding the push lock (a push's scratch folder is reused),
    /// and records what each probe found for the status page.
    public func check(
        _ destinations: [ReplicaDestination], lockTimeout: Double = 600, waiting: (String) -> Void = { _ in }
    ) throws(StoreError) -> [(destination: ReplicaDestination, outcome: ReplicaProbe.Outcome)] {
        let lock = try PublishLock(
            path: store.layout.state + "/push-lock", site: store.site, name: "push lock", timeout: lockTimeout, waiting: waiting)
        let work = store.layout.state + "/push"
        if FileSystem.exists(work) { try FileSystem.removeTree(work) }
        defer { try? FileSystem.removeTree(work) }
        var results: [(destination: ReplicaDestination, outcome: ReplicaProbe.Outcome)] = []
        for (index, destination) in destinations.enumerated() {
            let probe = ReplicaProbe(destination: destination, site: store.site, work: work + "/\(index)", lock: lock.descriptor)
            do throws(StoreError) { results.append((destination, try probe.run())) } catch {
                results.append((destination, .failed(error.description)))
            }
        }
        _ = consume lock
        ReplicaRecord(layout: store.layout).update(with: results, store: store)
        return results
    }
}
