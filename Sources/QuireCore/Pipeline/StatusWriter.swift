import Foundation
import Synchronization

/// Writes a site's status files (`status/`) after each build: in line, or (`quire watch`) on a
/// thread of its own at idle priority, newest only, so the next build does not wait for them and
/// a save never shares the disk with them (ARCHITECTURE.md, "Threads").
final class StatusWriter: Sendable {
    private let queue = LatestOnlyQueue(label: "quire.status", minimumInterval: 0.25, idlePriority: true)
    /// The status files' pages as the last write left them.
    private let pageCache = StatusPageCache()
    /// The last build's write, for `rewrite`.
    private let lastWrite = Mutex<(@Sendable () -> Void)?>(nil)

    /// `pages`: the pages the newest version serves, when the builder knows them (else the store
    /// lists them).
    func write(_ result: SiteBuildResult, store: SiteStore, locales: [String], pages: Set<String>?, inBackground: Bool) {
        let builtAt = Date()
        let write: @Sendable () -> Void = { [pageCache] in
            try? StatusReport.write(result: result, store: store, locales: locales, pages: pages, cache: pageCache, now: builtAt)
        }
        lastWrite.withLock { $0 = write }
        if inBackground { queue.submit(write) } else { write() }
    }

    /// Writes the last build's status files again in the background, with what the store says
    /// now (replicas, history): a push records its outcome so, rather than parsing and rendering
    /// every page of `status.json` again (`ReplicaRecord`).
    func rewrite() {
        if let write = lastWrite.withLock({ $0 }) { queue.submit(write) }
    }

    /// Renders the pages' parts of the status files ahead of the write (`StatusPageCache.prepare`).
    func prepare(_ pages: StatusReport.PageParts) { pageCache.prepare(pages) }

    /// Waits for status files still being written in the background.
    func flush() { queue.flush() }

    /// The queue's thread holds the queue until stopped.
    func stop() { queue.stop() }
}
