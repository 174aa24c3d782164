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

    public init(paths: Set<String> = [], needsFullRescan: Bool = false) {
        self.paths = paths
        self.needsFullRescan = needsFullRescan
    }

    public var isEmpty: Bool { paths.isEmpty && !needsFullRescan }
}
