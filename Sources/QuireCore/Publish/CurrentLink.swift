import Glibc

/// `dist/<site>/current -> versions/<v>`, swapped by renaming a new link over it, so a web
/// server resolves either the old or the new version, never nothing.
struct CurrentLink {
    let layout: SiteLayout

    func read() throws(StoreError) -> VersionID? {
        guard FileSystem.exists(layout.current) else { return nil }
        let target = try FileSystem.readLink(layout.current)
        guard target.hasPrefix("versions/"), let id = VersionID(String(target.dropFirst("versions/".count))) else {
            throw StoreError("'\(layout.current)' points at '\(target)', not at a version: point it at one with 'quire rollback'")
        }
        return id
    }

    /// Swaps `current`, then syncs its folder and `alsoSyncing` (files written before the swap
    /// whose durability readers need not wait for) together.
    func point(at version: VersionID, alsoSyncing files: [String] = []) throws(StoreError) {
        let temporary = layout.current + ".tmp-\(getpid())"
        if FileSystem.exists(temporary) { try FileSystem.remove(temporary) }
        try FileSystem.symbolicLink(SiteLayout.currentTarget(version), at: temporary)
        do {
            try FileSystem.rename(temporary, to: layout.current)
        } catch {
            _ = unlink(temporary)
            throw error
        }
        try FileSystem.syncTogether(directories: [layout.root], files: files)
    }
}
