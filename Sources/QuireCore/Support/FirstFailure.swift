import Foundation

/// The first error of concurrent work (NSLock: ThreadSanitizer sees it, see StageClock).
final class FirstFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var first: StoreError?

    var isSet: Bool { lock.withLock { first != nil } }
    var error: StoreError? { lock.withLock { first } }
    func set(_ error: StoreError) { lock.withLock { if first == nil { first = error } } }

    /// `DispatchQueue.concurrentPerform` of work that can fail: iterations not yet started
    /// after a failure are skipped, and the first failure is thrown once all have returned.
    /// Fewer than `inlineBelow` iterations run in order on this thread: for small pieces of
    /// work, waking a worker costs more than it saves.
    static func concurrentPerform(
        iterations: Int, inlineBelow: Int = 0,
        _ work: @Sendable (Int) throws(StoreError) -> Void
    ) throws(StoreError) {
        if iterations < inlineBelow {
            for index in 0..<iterations { try work(index) }
            return
        }
        let failure = FirstFailure()
        // A test's file-system faults reach the workers too.
        let faults = FaultPlan.current
        DispatchQueue.concurrentPerform(iterations: iterations) { index in
            guard !failure.isSet else { return }
            do throws(StoreError) { try FaultPlan.run(faults) { () throws(StoreError) in try work(index) } } catch { failure.set(error) }
        }
        if let error = failure.error { throw error }
    }
}
