import Glibc
import QuireCore

/// The crash-torture tests' hooks, read from the environment here and nowhere else, and handed to
/// every store this process opens: `QUIRE_CRASH_AT=<step>` (or `<step>#<n>`) kills the process
/// at that step as `kill -9` would, `QUIRE_PAUSE_AT=<step>:<file>` waits at the step while the
/// file exists, `QUIRE_STEP_LOG=<file>` appends each step's name to the file.
let testFaults = FaultPlan(
    crashAt: environment("QUIRE_CRASH_AT"), pauseAt: environment("QUIRE_PAUSE_AT"), stepLog: environment("QUIRE_STEP_LOG"))

private func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
