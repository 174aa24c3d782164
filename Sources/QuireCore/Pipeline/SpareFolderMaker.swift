import Dispatch
import Synchronization

/// Makes spare folders for the next save (`SpareFolderSlot.prepare`) on a thread of its
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

    /// The newest round's gate, opened once its spares are made: the reserves come after.
    private let newestRound = Mutex<RoundGate?>(nil)

    /// Makes spare folders of `store`'s newest version in the background, until build `next`
    /// starts, then the reserve copies the site's `keep` calls for (`SpareFolderSlot.reserve`),
    /// the first round's of the folders of `config`'s locales, which saves edit;
    /// `made` is told what each round that made spares did.
    func prepare(
        _ store: SiteStore, untilBuild next: Int, config: SiteConfig?,
        made: (@Sendable (_ made: Int, _ stopped: Bool, _ milliseconds: Double) -> Void)? = nil
    ) {
        guard (try? store.spareFolders.keep()) != nil else { return }
        let requested = DispatchTime.now().uptimeNanoseconds
        let gate = RoundGate()
        // A round waiting in the queue gives way to this one: its gate opens for whoever waits on it.
        newestRound.withLock {
            $0?.open()
            $0 = gate
        }
        queue.submit { [self] in
            defer { gate.open() }
            guard !isClosing.load(ordering: .relaxed) else { return }
            let shouldStop = { @Sendable in self.buildsStarted.load(ordering: .relaxed) >= next || self.isClosing.load(ordering: .relaxed) }
            let locales = config?.locales ?? []
            let count = store.spareFolders.prepare(
                workers: 2, savesEdit: { OutputPath.holdsPageFiles(folder: $0, locales: locales) }, shouldStop: shouldStop)
            if count > 0 { made?(count, shouldStop(), Double(DispatchTime.now().uptimeNanoseconds - requested) / 1e6) }
            gate.open()
            store.spareFolders.reserve(workers: 2, keep: config?.keep, shouldStop: shouldStop)
        }
    }

    /// Waits for spare folders being made in the background, and the reserves after them.
    func flush() { queue.flush() }

    /// Waits until the newest round's spares are made (or it stopped), not for its reserves.
    func waitForSpares() { newestRound.withLock { $0 }?.wait() }

    /// Stops making spare folders and removes them (no staging left behind), or hands the
    /// whole ones to the next watcher.
    func close(_ store: SiteStore?, handingOver: Bool = false) {
        isClosing.store(true, ordering: .relaxed)
        queue.flush()
        store?.spareFolders.close(handingOver: handingOver)
    }

    /// The queue's thread holds the queue until stopped.
    func stop() { queue.stop() }
}

/// Opened once, by whichever comes first: a round's spares made, its end, or a newer round.
private final class RoundGate: @unchecked Sendable {
    private let group = DispatchGroup()
    private let isOpen = Atomic<Bool>(false)

    init() { group.enter() }

    func open() {
        if !isOpen.exchange(true, ordering: .acquiringAndReleasing) { group.leave() }
    }

    func wait() { group.wait() }
}
