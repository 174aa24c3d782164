/// The named steps of a publish, rollback, unpin and gc, where the crash-torture tests stop a
/// process or log its progress (`FaultPlan`).
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
}
