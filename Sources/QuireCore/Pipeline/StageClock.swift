import Foundation

/// Time spent per pipeline stage, summed across worker threads (so it can exceed wall time).
///
/// Guarded by an `NSLock` (a pthread mutex), not `Synchronization.Mutex`: on Linux the latter
/// is futex-based inside the uninstrumented standard library, so ThreadSanitizer cannot see
/// its ordering and reports every `concurrentPerform` worker's update as a race.
public final class StageClock: @unchecked Sendable {
    public enum Stage: String, CaseIterable, Sendable {
        case scan, read, parse, validate, translations, merge, markdown, encode, hash, preview, publish, status
    }

    private var nanoseconds = [Int](repeating: 0, count: Stage.allCases.count)
    private let lock = NSLock()
    /// `allCases` makes its array anew on each call: about 300,000 calls in a large build.
    private static let stages = Stage.allCases

    public init() {}

    @discardableResult
    public func measure<T>(_ stage: Stage, _ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { add(stage, DispatchTime.now().uptimeNanoseconds - start) }
        return try body()
    }

    public func add(_ stage: Stage, _ elapsed: UInt64) {
        let index = Self.stages.firstIndex(of: stage) ?? 0
        lock.withLock { nanoseconds[index] += Int(elapsed) }
    }

    /// Milliseconds per stage, in stage order.
    public var milliseconds: [(stage: Stage, ms: Double)] {
        let totals = lock.withLock { nanoseconds }
        return Stage.allCases.enumerated().map { ($1, Double(totals[$0]) / 1e6) }
    }
}

/// Fixed slots filled from `concurrentPerform`: each index is written by exactly one iteration.
final class ResultSlots<Element>: @unchecked Sendable {
    private var storage: [Element?]
    private let lock = NSLock()

    init(count: Int) { storage = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Element) {
        lock.lock()
        storage[index] = value
        lock.unlock()
    }

    var values: [Element?] { storage }
}
