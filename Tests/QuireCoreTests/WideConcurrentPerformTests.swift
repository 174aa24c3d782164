import Foundation
import Testing

@testable import QuireCore

/// `WideConcurrentPerform.run`: every iteration once, more threads than cores when the work
/// blocks, and the calling thread alone when there is nothing to share.
@Suite struct WideConcurrentPerformTests {
    /// Which iterations ran, on which threads, and how many waited at once.
    final class Record: @unchecked Sendable {
        private let lock = NSCondition()
        private var indices: [Int] = []
        private var threads: Set<UInt> = []
        private var waiting = 0
        private var mostWaiting = 0

        func ran(_ index: Int) {
            lock.withLock {
                indices.append(index)
                threads.insert(UInt(pthread_self()))
            }
        }

        /// Blocks (as a read from disk would) until `target` iterations run at once, or 10 s pass.
        func waitForCompany(_ target: Int) {
            lock.lock()
            waiting += 1
            mostWaiting = max(mostWaiting, waiting)
            lock.broadcast()
            let deadline = Date().addingTimeInterval(10)
            while mostWaiting < target && lock.wait(until: deadline) {}
            waiting -= 1
            lock.unlock()
        }

        /// The most iterations that waited at the same time.
        var peak: Int { lock.withLock { mostWaiting } }
        var ranIndices: [Int] { lock.withLock { indices } }
        var threadCount: Int { lock.withLock { threads.count } }
        var onlyOnCaller: Bool { lock.withLock { threads == [UInt(pthread_self())] } }
    }

    @Test(arguments: [(0, 4), (1, 4), (7, 1), (50, 2), (50, 8), (3, 16)])
    func everyIterationRunsOnce(iterations: Int, width: Int) {
        let record = Record()
        WideConcurrentPerform.run(iterations: iterations, width: width) { record.ran($0) }
        #expect(record.ranIndices.sorted() == Array(0..<iterations))
        #expect(record.threadCount <= max(1, min(width, iterations)))
    }

    @Test func blockedIterationsLeaveRoomForMoreThreadsThanCores() {
        let width = ProcessInfo.processInfo.activeProcessorCount + 4
        let record = Record()
        WideConcurrentPerform.run(iterations: width, width: width) { index in
            record.ran(index)
            record.waitForCompany(width)
        }
        // With one thread per core, at most that many iterations could ever wait together.
        #expect(record.peak == width)
        #expect(record.threadCount == width)
    }

    @Test(arguments: [(1, 8), (6, 1)])
    func nothingToShareRunsInOrderOnTheCallingThread(iterations: Int, width: Int) {
        let record = Record()
        WideConcurrentPerform.run(iterations: iterations, width: width) { record.ran($0) }
        #expect(record.ranIndices == Array(0..<iterations))
        #expect(record.onlyOnCaller)
    }

    /// A worker number names one thread: state kept per worker is never shared between threads,
    /// and every iteration is counted in exactly one worker's state.
    @Test func eachWorkerNumberIsOneThread() {
        let iterations = 500
        let width = 4
        let threads = WideConcurrentPerform.threads(iterations: iterations, width: width)
        #expect(threads == width)
        let counts = ResultSlots<Int>(count: iterations)
        let owners = ResultSlots<UInt>(count: iterations)
        let workers = ResultSlots<Int>(count: iterations)
        WideConcurrentPerform.run(iterations: iterations, width: width) { worker, index in
            counts.set(index, 1)
            owners.set(index, UInt(pthread_self()))
            workers.set(index, worker)
        }
        #expect(counts.values.compactMap { $0 }.count == iterations)
        var threadOfWorker: [Int: UInt] = [:]
        for (worker, owner) in zip(workers.values, owners.values) {
            guard let worker, let owner else { continue }
            #expect((0..<threads).contains(worker))
            #expect(threadOfWorker[worker, default: owner] == owner)
            threadOfWorker[worker] = owner
        }
    }
}
