import Glibc
import Synchronization

/// The named steps of a publish, rollback, unpin and gc, for the crash-torture tests (issue 5).
///
/// - `QUIRE_CRASH_AT=<step>` (or `<step>#<n>` for the n-th time the step is reached in the
///   process) kills the process with SIGKILL right there, as `kill -9` would.
/// - `QUIRE_STEP_LOG=<file>` appends each step's name to the file as it is reached, so a test
///   that kills at random moments can tell which step it hit.
///
/// Both are read once; without them reaching a step costs one branch.
enum CrashPoint: String, CaseIterable, Sendable {
    /// The lock was just taken: removing what a crashed process left, completing its swap.
    case recover
    /// Writing new trees, files and the version folder into `staging/`.
    case staging
    /// The one `syncfs`, after the moves and before the history line and the swap.
    case sync
    /// Renaming trees and the version folder into `trees/` and `versions/`.
    case move
    /// Writing or removing `state/pin`.
    case pin
    /// Appending to `state/history.jsonl`.
    case history
    /// Renaming the new `current` link over the old one.
    case swap
    /// Removing a staging or garbage folder of this process.
    case cleanup
    /// gc: moving removed versions aside and marking the trees kept versions reach.
    case mark
    /// gc: moving unreachable trees aside.
    case sweep

    private struct Settings: Sendable {
        var crashAt: CrashPoint?
        var crashOnOccurrence = 1
        var logDescriptor: Int32 = -1
        var isActive: Bool { crashAt != nil || logDescriptor >= 0 }
    }

    private static let settings: Settings = {
        var settings = Settings()
        if let value = getenv("QUIRE_CRASH_AT").map({ String(cString: $0) }), !value.isEmpty {
            let parts = value.split(separator: "#", maxSplits: 1)
            settings.crashAt = CrashPoint(rawValue: String(parts[0]))
            if parts.count == 2, let occurrence = Int(parts[1]), occurrence > 0 { settings.crashOnOccurrence = occurrence }
        }
        if let path = getenv("QUIRE_STEP_LOG").map({ String(cString: $0) }), !path.isEmpty {
            settings.logDescriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        }
        return settings
    }()

    private static let occurrences = Mutex<[CrashPoint: Int]>([:])

    /// Call right before doing the step.
    func reach() {
        let settings = Self.settings
        guard settings.isActive else { return }
        if settings.logDescriptor >= 0 {
            let line = Array((rawValue + "\n").utf8)
            _ = line.withUnsafeBytes { write(settings.logDescriptor, $0.baseAddress, $0.count) }
        }
        guard settings.crashAt == self else { return }
        let count = Self.occurrences.withLock { counts in
            counts[self, default: 0] += 1
            return counts[self, default: 0]
        }
        if count == settings.crashOnOccurrence { kill(getpid(), SIGKILL) }
    }
}
