import CMimalloc
import Dispatch
import Glibc
import Synchronization

/// The process's allocator. Both executables link mimalloc (Debian's `libmimalloc`) through this
/// module's import, which then serves `malloc` for the whole process, Swift runtime and C
/// libraries included: allocation is a third of what it costs with glibc's malloc
/// (bench/RESULTS.md, "What this machine does").
package enum Allocator {
    /// `mimalloc 2.0.9` when mimalloc serves `malloc`; `not mimalloc` when another one does (a
    /// link order that put glibc first, a sanitizer's allocator, an `LD_PRELOAD`).
    package static var name: String {
        guard let probe = malloc(64) else { return "unknown" }
        defer { free(probe) }
        guard mi_is_in_heap_region(probe) else { return "not mimalloc" }
        let version = Int(mi_version())
        return "mimalloc \(version / 100).\(version / 10 % 10).\(version % 10)"
    }

    /// For a process that lives on between builds (`quire watch`): memory freed is given back to
    /// the system at once, not 25 ms later. mimalloc runs a delayed decommit only when the thread
    /// that freed the memory allocates again, and a watcher's threads sit idle between saves
    /// holding what the last build let go of (bench/RESULTS.md, "What this machine does").
    /// `MIMALLOC_DECOMMIT_DELAY` in the environment, when set, wins.
    package static func returnFreedMemoryAtOnce() {
        guard getenv("MIMALLOC_DECOMMIT_DELAY") == nil else { return }
        mi_option_set(mi_option_decommit_delay, 0)
    }

    /// Gives back to the system what the calling thread's heap and the abandoned ones hold free.
    package static func collect() { mi_collect(true) }

    /// `collect` on each of the threads `DispatchQueue.concurrentPerform` runs on (the publish's
    /// writers among them). A block freed by another thread than the one that allocated it waits
    /// in a list for that thread to allocate again, which then walks the list first: after a
    /// large build, that walk and the decommit after it were tens of milliseconds of the first
    /// save's publish. Each iteration waits briefly for the others to start, so that each is on
    /// a thread of its own (no guarantee: a pool that grew beyond the cores has more threads).
    package static func collectOnDispatchWorkers() {
        let threads = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let started = Atomic<Int>(0)
        // One deadline for all: iterations run one after another wait 20 ms in all, not each.
        let deadline = DispatchTime.now().uptimeNanoseconds + 20_000_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            started.add(1, ordering: .relaxed)
            while started.load(ordering: .relaxed) < threads && DispatchTime.now().uptimeNanoseconds < deadline { sched_yield() }
            mi_collect(true)
        }
    }
}
