/// Turns a stream of events into change sets: a lone save is published at once, a burst is
/// coalesced into one change set.
///
/// Pure state, no clock and no queue: the caller feeds events with their time, asks what to do
/// next, and says when the consumer is done (tests drive it with a synthetic clock, like
/// swift-nio's `EmbeddedChannel`; `SettleQueue` drives it with Dispatch).
///
/// - A finished write on an idle tree (consumer idle, no other event within the quiet window
///   but those on the same path) is due at once: the leading edge.
/// - Otherwise pending events are due when the tree has been quiet for `quietWindow`, or
///   `maxDelay` after the first pending event, whichever comes first.
/// - While a burst goes on (events with no quiet window between them), its pending events are
///   also due `headStart` after the first of them, marked `moreComing`: the consumer renders
///   them while the rest is written, and publishes nothing yet. The set that ends the burst
///   (at quiet; empty when nothing is pending then) is not marked, and neither is one due
///   `maxDelay` after the first marked set: so a burst is published whole, once, and a
///   never-ending stream at least every `maxDelay`.
/// - While the consumer is busy nothing is emitted: events accumulate into one pending set,
///   which collapses into `needsFullRescan` past `maxPendingPaths` paths.
struct Settler {
    enum Decision: Equatable {
        /// Hand this change set to the consumer; the consumer is now busy.
        case emit(ChangeSet)
        /// Ask again at this time (or when an event arrives).
        case wait(until: Double)
        /// Something is due, but a git operation holds the tree: ask again shortly.
        case held
        /// Nothing to do until an event arrives or the consumer finishes.
        case idle
    }

    let quietWindow: Double
    let maxDelay: Double
    let headStart: Double
    let maxPendingPaths: Int

    private(set) var pending = ChangeSet()
    private(set) var isConsumerBusy = false
    private var firstPendingAt: Double?
    private var lastEventAt: Double?
    private var lastFinishedWriteAt: Double?
    private var leadingEdgeDue = false
    /// The last event of any kind, kept across emissions: a gap of `quietWindow` ends a burst.
    private var burstLastEventAt: Double?
    /// The first event of the first set emitted with `moreComing` since the last set without:
    /// the consumer holds unpublished changes since then.
    private var holdingSince: Double?

    init(quietWindow: Double, maxDelay: Double, headStart: Double = .infinity, maxPendingPaths: Int = 100_000) {
        self.quietWindow = quietWindow
        self.maxDelay = maxDelay
        self.headStart = headStart
        self.maxPendingPaths = maxPendingPaths
    }

    init(options: WatchOptions) {
        self.init(quietWindow: options.quietWindow, maxDelay: options.maxDelay, headStart: options.headStart)
    }

    var hasPending: Bool { !pending.isEmpty }

    mutating func record(_ event: WatchEvent, at now: Double) {
        // Idle: nothing else happening. Earlier events on the same path (the create before
        // the write, the move away of the old copy in a safe save) are part of this save.
        let onlyThisPathPending = pending.paths.isEmpty || (pending.paths.count == 1 && pending.paths.contains(event.path))
        let othersQuiet = onlyThisPathPending || lastEventAt.map { now - $0 >= quietWindow } ?? true
        let treeIsIdle = !isConsumerBusy && othersQuiet && lastFinishedWriteAt.map { now - $0 >= quietWindow } ?? true
        switch event.kind {
        case .rescan:
            pending.needsFullRescan = true
        case .finishedWrite, .changed:
            add(event.path)
        }
        if firstPendingAt == nil { firstPendingAt = now }
        lastEventAt = now
        burstLastEventAt = now
        if event.kind == .finishedWrite {
            if treeIsIdle { leadingEdgeDue = true }
            lastFinishedWriteAt = now
        }
    }

    /// What to do at `now`. `isHeld` is asked only when a change set is due.
    mutating func decide(at now: Double, isHeld: () -> Bool) -> Decision {
        guard !isConsumerBusy else { return .idle }
        guard hasPending, let firstPendingAt, let lastEventAt else { return decideHeldFlush(at: now, isHeld: isHeld) }
        var changeSet = pending
        if !leadingEdgeDue {
            let quietAt = lastEventAt + quietWindow
            let capAt = min(firstPendingAt, holdingSince ?? .infinity) + maxDelay
            let due = min(quietAt, capAt, firstPendingAt + headStart)
            if now < due { return .wait(until: due) }
            changeSet.moreComing = now < quietAt && now < capAt && !changeSet.needsFullRescan
        }
        if isHeld() { return .held }
        holdingSince = changeSet.moreComing ? holdingSince ?? firstPendingAt : nil
        pending = ChangeSet()
        self.firstPendingAt = nil
        self.lastEventAt = nil
        leadingEdgeDue = false
        isConsumerBusy = true
        return .emit(changeSet)
    }

    /// Nothing pending, but the consumer holds changes: an empty set publishes them once the
    /// burst is over.
    private mutating func decideHeldFlush(at now: Double, isHeld: () -> Bool) -> Decision {
        guard let holdingSince else { return .idle }
        let due = min((burstLastEventAt ?? holdingSince) + quietWindow, holdingSince + maxDelay)
        if now < due { return .wait(until: due) }
        if isHeld() { return .held }
        self.holdingSince = nil
        isConsumerBusy = true
        return .emit(ChangeSet())
    }

    mutating func consumerFinished() {
        isConsumerBusy = false
    }

    private mutating func add(_ path: String) {
        // Bounded memory: past the limit the consumer rescans everything anyway.
        guard !pending.needsFullRescan else { return }
        pending.paths.insert(path)
        if pending.paths.count > maxPendingPaths {
            pending = ChangeSet(needsFullRescan: true)
        }
    }
}
