import Foundation
import Testing

@testable import QuireCore

/// The status writer of `quire watch`: work submitted while earlier work runs replaces what is
/// waiting, so a burst of builds writes the status files once more, with the newest result.
@Suite struct LatestOnlyQueueTests {
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [Int] = []
        func append(_ value: Int) { lock.withLock { entries.append(value) } }
        var values: [Int] { lock.withLock { entries } }
    }

    @Test func workSubmittedWhileBusyKeepsOnlyTheNewest() {
        let queue = LatestOnlyQueue(label: "test.latest-only")
        let log = Log()
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        queue.submit {
            started.signal()
            release.wait()
            log.append(1)
        }
        started.wait()
        for value in 2...5 { queue.submit { log.append(value) } }
        release.signal()
        queue.flush()
        #expect(log.values == [1, 5])
    }

    @Test func flushRunsWhatWaitsForItsInterval() {
        // An hour between runs: only flush can run the second piece of work.
        let queue = LatestOnlyQueue(label: "test.latest-only-interval", minimumInterval: 3600)
        let log = Log()
        queue.submit { log.append(1) }
        queue.flush()
        queue.submit { log.append(2) }
        queue.flush()
        #expect(log.values == [1, 2])
    }

    /// The scheduling policy of the thread a queue runs its work on.
    private func policyOfWork(idlePriority: Bool) -> Int32 {
        let queue = LatestOnlyQueue(label: "test.policy", idlePriority: idlePriority)
        let ran = DispatchSemaphore(value: 0)
        let policy = Log()
        queue.submit {
            policy.append(Int(sched_getscheduler(0)))
            ran.signal()
        }
        ran.wait()
        queue.stop()
        return Int32(policy.values[0])
    }

    @Test func idlePriorityWorkRunsUnderSchedIdle() {
        #expect(policyOfWork(idlePriority: true) == LatestOnlyQueue.schedIdle)
        #expect(policyOfWork(idlePriority: false) == SCHED_OTHER)
    }

    @Test func flushRunsOnTheCallerAtItsOwnPriority() {
        let queue = LatestOnlyQueue(label: "test.flush-policy", minimumInterval: 3600, idlePriority: true)
        let log = Log()
        queue.submit { log.append(1) }
        queue.flush()  // the first run may be the thread's or the flush's
        queue.submit { log.append(Int(sched_getscheduler(0))) }
        queue.flush()
        queue.stop()
        #expect(log.values == [1, Int(SCHED_OTHER)])
    }

    @Test func stopRunsWhatWaitsAndEndsTheThread() {
        let queue = LatestOnlyQueue(label: "test.stop", minimumInterval: 3600)
        let log = Log()
        queue.submit { log.append(1) }
        queue.flush()
        queue.submit { log.append(2) }
        queue.stop()
        #expect(log.values == [1, 2])
        queue.submit { log.append(3) }  // no thread runs it now: only a flush does
        Thread.sleep(forTimeInterval: 0.05)
        #expect(log.values == [1, 2])
        queue.flush()
        #expect(log.values == [1, 2, 3])
    }
}
