import Glibc
import Synchronization

/// What a test wants a store to do at its named steps (`CrashPoint`): kill the process there, as
/// `kill -9` would, and log each step as it is reached, so a test that kills at random moments
/// can tell which step it hit. Given to a `SiteStore` when it is opened and handed to what the
/// store writes with; production stores get `none`, and reaching a step then costs one branch.
///
/// The CLI makes one from `QUIRE_CRASH_AT` and `QUIRE_STEP_LOG` (its entry point is the only
/// reader of those variables); unit tests make their own.
public final class FaultPlan: Sendable {
    /// No crash, no log.
    public static let none = FaultPlan()

    private let crashAt: CrashPoint?
    /// Kill the n-th time `crashAt` is reached by this plan's stores, not before.
    private let crashOnOccurrence: Int
    private let logDescriptor: Int32
    private let isActive: Bool
    private let occurrences = Mutex<[CrashPoint: Int]>([:])

    public init() {
        crashAt = nil
        crashOnOccurrence = 1
        logDescriptor = -1
        isActive = false
    }

    /// `crashAt`: `<step>`, or `<step>#<n>` for the n-th time the step is reached (an unknown
    /// step never crashes); `stepLog`: a file each step's name is appended to as it is reached.
    public init(crashAt: String?, stepLog: String?) {
        var point: CrashPoint?
        var occurrence = 1
        if let crashAt, !crashAt.isEmpty {
            let parts = crashAt.split(separator: "#", maxSplits: 1)
            point = CrashPoint(rawValue: String(parts[0]))
            if parts.count == 2, let number = Int(parts[1]), number > 0 { occurrence = number }
        }
        var descriptor: Int32 = -1
        if let stepLog, !stepLog.isEmpty { descriptor = open(stepLog, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644) }
        self.crashAt = point
        crashOnOccurrence = occurrence
        logDescriptor = descriptor
        isActive = point != nil || descriptor >= 0
    }

    deinit { if logDescriptor >= 0 { close(logDescriptor) } }

    /// Call right before doing the step.
    func reach(_ point: CrashPoint) {
        guard isActive else { return }
        if logDescriptor >= 0 {
            let line = Array((point.rawValue + "\n").utf8)
            _ = line.withUnsafeBytes { write(logDescriptor, $0.baseAddress, $0.count) }
        }
        guard crashAt == point else { return }
        let count = occurrences.withLock { counts in
            counts[point, default: 0] += 1
            return counts[point, default: 0]
        }
        if count == crashOnOccurrence { kill(getpid(), SIGKILL) }
    }
}
