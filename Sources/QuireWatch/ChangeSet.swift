/// What changed under the watched root since the previous change set.
///
/// A path may name a file (written, created, deleted, moved away or in) or a folder (created,
/// moved or deleted: rescan the pages under it). `needsFullRescan` means events were lost
/// (queue overflow, a lost watch, the watch limit, polling fallback): rescan the whole tree,
/// whatever `paths` holds.
public struct ChangeSet: Sendable, Equatable {
    /// Absolute paths, each under the watched root.
    public var paths: Set<String>
    public var needsFullRescan: Bool
    /// The burst these changes belong to is still being written: the consumer may prepare
    /// them without publishing. A set with this false always follows (empty when nothing else
    /// changed), at quiet or at most `maxDelay` after the first held set.
    public var moreComing: Bool

    public init(paths: Set<String> = [], needsFullRescan: Bool = false, moreComing: Bool = false) {
        self.paths = paths
        self.needsFullRescan = needsFullRescan
        self.moreComing = moreComing
    }

    public var isEmpty: Bool { paths.isEmpty && !needsFullRescan }
}

extension ChangeSet {
    /// What each site must read again: its changed paths, or nil for everything (a rescan, or
    /// an event on the site folder itself, such as the attributes rsync sets at its end).
    /// `pagesRoot` is absolute; a site is the first folder under it that `isSite` accepts.
    public func bySite(pagesRoot: String, allSites: @autoclosure () -> [String], isSite: (String) -> Bool) -> [String: Set<String>?] {
        var everything: Set<String> = needsFullRescan ? Set(allSites()) : []
        var changed: [String: Set<String>] = [:]
        for path in paths where path.hasPrefix(pagesRoot + "/") {
            let parts = path.dropFirst(pagesRoot.count + 1).split(separator: "/")
            guard let site = parts.first.map(String.init), isSite(site) else { continue }
            if parts.count == 1 { everything.insert(site) } else { changed[site, default: []].insert(path) }
        }
        var sites: [String: Set<String>?] = [:]
        for (site, paths) in changed { sites[site] = .some(paths) }
        // Assigned last, and as `.some(nil)`: a plain nil would remove the site instead.
        for site in everything { sites[site] = .some(nil) }
        return sites
    }
}
