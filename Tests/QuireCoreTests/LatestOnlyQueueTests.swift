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
}
