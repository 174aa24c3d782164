import Foundation
import Synchronization

/// `DispatchQueue.concurrentPerform` on more threads than cores, for work that blocks on the
/// disk: Dispatch keeps one thread per core, so a thread waiting for a source file the page
/// cache no longer holds (or for an inode table block) leaves its core idle. Here another
/// thread takes the core. The calling thread is one of the `width` threads.
enum WideConcurrentPerform {
    /// Two threads per core: a build whose sources the page cache let go waits for the disk
    /// less, one whose sources are cached pays nothing for it (bench/RESULTS.md).
    ///
    /// Read once: Foundation reads two cgroup files for `activeProcessorCount` each time it is
    /// asked, four system calls at the start of every one-page save.
    static let defaultWidth = 2 * ProcessInfo.processInfo.activeProcessorCount

    static func run(iterations: Int, width: Int = defaultWidth, _ work: (Int) -> Void) {
        let threads = min(width, iterations)
        guard threads > 1 else {
            for index in 0..<iterations { work(index) }
            return
        }
        // Every thread is joined before this returns, so `work` never outlives the call.
        withoutActuallyEscaping(work) { work in
            let queue = IndexQueue(count: iterations, work: work)
            let started = (1..<threads).compactMap { _ in PosixThread(queue.drain) }  // one refused: the others do its share
            queue.drain()
            for thread in started { thread.join() }
        }
    }

    /// Hands out each index once, to whichever thread asks next.
    private final class IndexQueue: @unchecked Sendable {
        private let next = Atomic<Int>(0)
        private let count: Int
        private let work: (Int) -> Void

        init(count: Int, work: @escaping (Int) -> Void) {
            self.count = count
            self.work = work
        }

        func drain() {
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < count else { return }
                work(index)
            }
        }
    }
}
