import Dispatch
import Synchronization

/// Makes spare folders for the next save (`SiteStore.prepareSpareFolders`) on a thread of its
/// own between builds (`quire watch`), so a save writes only what it changes. Making them stops
/// as soon as the next build starts, and for good once closed.
final class SpareFolderMaker: Sendable {
    private let queue = LatestOnlyQueue(label: "quire.spares", durationFactor: 0)
    /// Builds started so far: spare folders are made only while this stays the same.
    private let buildsStarted = Atomic<Int>(0)
    private let isClosing = Atomic<Bool>(false)

    /// Counts a build that starts (stopping spares in the making); returns its number.
    func buildStarts() -> Int { buildsStarted.add(1, ordering: .relaxed).newValue }

    /// The builds started so far: the one running, if any.
    var builds: Int { buildsStarted.load(ordering: .relaxed) }

    /// Makes spare folders of `store`'s newest version in the background, until build `next`
    /// starts; `made` is told what each round that made some did.
    func prepare(
        _ store: SiteStore, untilBuild next: Int, made: (@Sendable (_ made: Int, _ stopped: Bool, _ milliseconds: Double) -> Void)? = nil
    ) {
        guard (try? store.keepSpareFolders()) != nil else { return }
        let requested = DispatchTime.now().uptimeNanoseconds
        queue.submit { [self] in
            guard !isClosing.load(ordering: .relaxed) else { return }
            let shouldStop = { @Sendable in self.buildsStarted.load(ordering: .relaxed) >= next || self.isClosing.load(ordering: .relaxed) }
            let count = store.prepareSpareFolders(workers: 2, shouldStop: shouldStop)
            if count > 0 { made?(count, shouldStop(), Double(DispatchTime.now().uptimeNanoseconds - requested) / 1e6) }
        }
    }

    /// Waits for spare folders being made in the background.
    func flush() { queue.flush() }

    /// Stops making spare folders and removes them (no staging left behind), or hands the
    /// whole ones to the next watcher.
    func close(_ store: SiteStore?, handingOver: Bool = false) {
        isClosing.store(true, ordering: .relaxed)
        queue.flush()
        store?.closeSpareFolders(handingOver: handingOver)
    }

    /// The queue's thread holds the queue until stopped.
    func stop() { queue.stop() }
}
