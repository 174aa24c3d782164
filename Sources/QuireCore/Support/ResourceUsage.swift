package import Glibc

/// CPU time from a `rusage` (`getrusage`, `wait4`), in seconds. Package-level: the floor
/// measures and `quire-bench` use it.
package struct ResourceUsage: Sendable {
    package var user: Double
    package var system: Double

    package init(_ usage: rusage) {
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        user = seconds(usage.ru_utime)
        system = seconds(usage.ru_stime)
    }

    private init(user: Double, system: Double) {
        self.user = user
        self.system = system
    }

    package static var ofThisProcess: ResourceUsage {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return ResourceUsage(usage)
    }

    package func minus(_ earlier: ResourceUsage) -> ResourceUsage {
        ResourceUsage(user: user - earlier.user, system: system - earlier.system)
    }
}
