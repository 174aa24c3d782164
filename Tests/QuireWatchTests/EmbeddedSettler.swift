@testable import QuireWatch

/// Drives a `Settler` with a synthetic clock, like swift-nio's `EmbeddedChannel`: events go in at
/// given times, time advances in jumps to each deadline, emitted change sets are collected.
struct EmbeddedSettler {
    var settler: Settler
    private(set) var now = 0.0
    private(set) var emitted: [(time: Double, changeSet: ChangeSet)] = []
    /// When true the consumer returns at once; otherwise call `finishConsumer()`.
    var consumerReturnsAtOnce = true
    var gitHoldsTree = false

    init(quietWindow: Double = 0.03, maxDelay: Double = 1.0, headStart: Double = .infinity, maxPendingPaths: Int = 100_000) {
        settler = Settler(quietWindow: quietWindow, maxDelay: maxDelay, headStart: headStart, maxPendingPaths: maxPendingPaths)
    }

    var changeSets: [ChangeSet] { emitted.map(\.changeSet) }

    mutating func write(_ path: String, at time: Double) {
        record(.finishedWrite(path), at: time)
    }

    mutating func record(_ event: WatchEvent, at time: Double) {
        advance(to: time)
        settler.record(event, at: time)
        runDue()
    }

    /// Moves the clock to `time`, firing every deadline on the way.
    mutating func advance(to time: Double) {
        precondition(time >= now, "the synthetic clock only moves forward")
        while true {
            switch settler.decide(at: now, isHeld: { gitHoldsTree }) {
            case .emit(let changeSet):
                emit(changeSet)
            case .wait(let until) where until <= time:
                now = until
            case .wait, .held, .idle:
                now = time
                return
            }
        }
    }

    mutating func finishConsumer() {
        settler.consumerFinished()
        runDue()
    }

    private mutating func runDue() {
        advance(to: now)
    }

    private mutating func emit(_ changeSet: ChangeSet) {
        emitted.append((now, changeSet))
        if consumerReturnsAtOnce { settler.consumerFinished() }
    }
}
