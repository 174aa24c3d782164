public import Glibc

/// CPU time from a `rusage` (`getrusage`, `wait4`), in seconds.
public struct ResourceUsage: Sendable {
    public var user: Double
    public var system: Double

    public init(_ usage: rusage) {
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        user = seconds(usage.ru_utime)
        system = seconds(usage.ru_stime)
    }

    private init(user: Double, system: Double) {
        self.user = user
        self.system = system
    }

    public static var ofThisProcess: ResourceUsage {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return ResourceUsage(usage)
    }

    public func minus(_ earlier: ResourceUsage) -> ResourceUsage {
        ResourceUsage(user: user - earlier.user, system: system - earlier.system)
    }
}
