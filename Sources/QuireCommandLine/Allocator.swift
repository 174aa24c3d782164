import CMimalloc
import Glibc

/// The process's allocator. Both executables link mimalloc (Debian's `libmimalloc`) through this
/// module's import, which then serves `malloc` for the whole process, Swift runtime and C
/// libraries included: a cold build spends about a fifth less CPU than with glibc's malloc
/// (bench/RESULTS.md, the 726aae6 runs).
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
    /// holding what the last build let go of: 10,000 pages x 3 locales in one folder held 305 MiB
    /// after the first build with the delay, 236 MiB without (bench/RESULTS.md).
    /// `MIMALLOC_DECOMMIT_DELAY` in the environment, when set, wins.
    package static func returnFreedMemoryAtOnce() {
        guard getenv("MIMALLOC_DECOMMIT_DELAY") == nil else { return }
        mi_option_set(mi_option_decommit_delay, 0)
    }
}
