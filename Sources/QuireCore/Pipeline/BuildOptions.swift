public import Foundation

/// How a `SiteBuilder` builds: what `quire build`, `check` and `watch` set.
public struct BuildOptions: Sendable {
    /// False for `quire check`: validate and render, publish nothing.
    public var publish = true
    public var previews = true
    /// False for a one-shot `quire build`: nothing is kept for a next build that never comes
    /// (parse trees, carried outputs, the delta base: on a large site, memory held while the
    /// version is planned and written).
    public var keepsSources = true
    public var lockTimeout: Double = 30
    /// Told when another process holds the publish lock.
    public var log: @Sendable (String) -> Void = { _ in }
    /// Told (pages done, pages in all) as pages render, for a progress bar on long builds.
    public var progress: (@Sendable (Int, Int) -> Void)?
    /// Write the status files on a thread of their own, newest only (`quire watch`): the next
    /// build does not wait for them. `SiteBuilder.flushStatus()` waits for the last one.
    public var statusInBackground = false
    /// Keep pre-linked spare copies of the newest version's folders, made on a thread of their
    /// own between builds (`quire watch`), so a save writes only what it changes (`SpareFolders`).
    public var spareFolders = false
    /// Told after each round of spare folders that made some (`quire watch --timings`): how many,
    /// whether the next build stopped it, and how long after its publish it ended.
    public var spareFoldersMade: (@Sendable (_ made: Int, _ stopped: Bool, _ milliseconds: Double) -> Void)?
    /// Start from what the last watcher of the site knew (`RestartCache`), and leave what this
    /// one knows for the next (`quire watch`).
    public var restartCache = false
    /// Told the moment a build's version is live (`current` swapped, or recorded while pinned),
    /// on the building thread, with the build's result so far: the dashboard tells its editors
    /// then, not after what follows the swap. Keep it short.
    public var published: (@Sendable (SiteBuildResult) -> Void)?
    /// The time `publish_at` / `expires_at` are judged at; tests fix it.
    public var now: @Sendable () -> Date = { Date() }
    /// Where the store crashes or logs its steps, for the crash-torture tests (`FaultPlan`).
    public var faults = FaultPlan.none

    public init() {}
}
