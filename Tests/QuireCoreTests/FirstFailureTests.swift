import Foundation
import Testing

@testable import QuireCore

/// `FirstFailure.concurrentPerform`: every iteration once, the first failure thrown, and small
/// runs kept on the calling thread.
@Suite struct FirstFailureTests {
    /// What the iterations saw: their indices in the order they ran, and whether each ran on
    /// the thread that called `concurrentPerform`.
    final class Record: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [(index: Int, onCaller: Bool)] = []
        let caller = pthread_self()

        func add(_ index: Int) {
            let onCaller = pthread_equal(pthread_self(), caller) != 0
            lock.withLock { entries.append((index, onCaller)) }
        }

        var indices: [Int] { lock.withLock { entries.map(\.index) } }
        var allOnCaller: Bool { lock.withLock { entries.allSatisfy(\.onCaller) } }
    }

    @Test(arguments: [0, 3, 8, 100])
    func everyIterationRunsOnce(inlineBelow: Int) throws {
        let record = Record()
        // Long enough that a worker thread, once awake, takes some of them.
        try FirstFailure.concurrentPerform(iterations: 7, inlineBelow: inlineBelow) { index in
            record.add(index)
            usleep(2_000)
        }
        #expect(record.indices.sorted() == Array(0..<7))
        if inlineBelow > 7 {
            #expect(record.indices == Array(0..<7), "in order")
            #expect(record.allOnCaller)
        }
    }

    @Test func aFewIterationsStopAtTheFirstFailureOnTheCallingThread() {
        let record = Record()
        #expect(throws: StoreError.self) {
            try FirstFailure.concurrentPerform(iterations: 5, inlineBelow: 8) { index throws(StoreError) in
                record.add(index)
                if index == 2 { throw StoreError("iteration 2 failed") }
            }
        }
        #expect(record.indices == [0, 1, 2], "nothing after the failure runs")
        #expect(record.allOnCaller)
    }

    @Test func manyIterationsThrowTheFirstFailureOnceAllReturned() {
        let record = Record()
        do {
            try FirstFailure.concurrentPerform(iterations: 64) { index throws(StoreError) in
                record.add(index)
                if index % 16 == 5 { throw StoreError("iteration \(index) failed") }
            }
            Issue.record("no failure was thrown")
        } catch {
            #expect(error.description.hasPrefix("iteration "))
            #expect(error.description.hasSuffix(" failed"))
        }
        #expect(record.indices.count <= 64)
        #expect(Set(record.indices).count == record.indices.count, "no iteration twice")
    }
}
