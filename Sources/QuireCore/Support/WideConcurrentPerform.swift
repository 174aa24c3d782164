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
        run(iterations: iterations, width: width) { _, index in work(index) }
    }

    /// How many threads `run` uses for `iterations`: its workers are numbered `0..<threads`.
    static func threads(iterations: Int, width: Int = defaultWidth) -> Int { max(1, min(width, iterations)) }

    /// `work(worker, index)`: `worker` (below `threads(iterations:width:)`) names the thread, so a
    /// caller can give each thread its own state and merge it once this returns.
    static func run(iterations: Int, width: Int = defaultWidth, _ work: (_ worker: Int, _ index: Int) -> Void) {
        let threads = threads(iterations: iterations, width: width)
        guard threads > 1 else {
            for index in 0..<iterations { work(0, index) }
            return
        }
        // Every thread is joined before this returns, so `work` never outlives the call.
        withoutActuallyEscaping(work) { work in
            let queue = IndexQueue(count: iterations, work: work)
            // One refused: the others do its share.
            let started = (1..<threads).compactMap { worker in PosixThread { queue.drain(worker: worker) } }
            queue.drain(worker: 0)
            for thread in started { thread.join() }
        }
    }

    /// Hands out each index once, to whichever thread asks next.
    private final class IndexQueue: @unchecked Sendable {
        private let next = Atomic<Int>(0)
        private let count: Int
        private let work: (Int, Int) -> Void

        init(count: Int, work: @escaping (Int, Int) -> Void) {
            self.count = count
            self.work = work
        }

        func drain(worker: Int) {
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < count else { return }
                work(worker, index)
            }
        }
    }
}
