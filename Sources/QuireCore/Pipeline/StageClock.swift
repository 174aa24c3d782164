import Foundation
import Synchronization

/// Time spent per pipeline stage, summed across worker threads (so it can exceed wall time).
///
/// One atomic counter per stage: no lock, so threads adding to it never wait for each other
/// (ThreadSanitizer sees the atomics, which `Synchronization.Mutex` hides from it on Linux).
/// The page loop gives each worker thread its own clock and adds them up at the end
/// (`add(_:)`), so the workers do not even share the counters' cache line.
public final class StageClock: Sendable {
    public enum Stage: String, CaseIterable, Sendable {
        /// `index`: the page index and feed files made from the pages' files.
        case scan, read, parse, validate, translations, merge, markdown, encode, hash, preview, index, publish, status
    }

    private static let stageCount = 13
    private let nanoseconds = InlineArray<13, Atomic<Int>> { _ in Atomic(0) }
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
        nanoseconds[index].add(Int(elapsed), ordering: .relaxed)
    }

    /// Adds what `other` measured (a worker's clock, once its thread has been joined).
    func add(_ other: StageClock) {
        for index in 0..<Self.stageCount { nanoseconds[index].add(other.nanoseconds[index].load(ordering: .relaxed), ordering: .relaxed) }
    }

    /// Milliseconds per stage, in stage order.
    public var milliseconds: [(stage: Stage, ms: Double)] {
        Self.stages.enumerated().map { ($1, Double(nanoseconds[$0].load(ordering: .relaxed)) / 1e6) }
    }
}

/// Fixed slots filled from `WideConcurrentPerform`: each index is written by exactly one
/// iteration, and read only once every worker has been joined (the join orders the writes), so
/// no lock: a slot's writer never waits for another's.
final class ResultSlots<Element>: @unchecked Sendable {
    private let storage: UnsafeMutableBufferPointer<Element?>

    init(count: Int) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: nil)
    }

    deinit {
        storage.deinitialize()
        storage.deallocate()
    }

    func set(_ index: Int, _ value: Element) { storage[index] = value }

    var values: [Element?] { Array(storage) }
}
