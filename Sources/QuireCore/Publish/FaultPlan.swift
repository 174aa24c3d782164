import Glibc
import Synchronization

/// What a test wants a store to do at its named steps (`CrashPoint`): kill the process there, as
/// `kill -9` would, or wait there while a file exists (a test then acts at that step, however
/// slow the machine), and log each step as it is reached, so a test that kills at random moments
/// can tell which step it hit; and which of its file-system calls fail (`fail`), as a full disk
/// or a failing device would make them. Given to a `SiteStore` when it is opened and handed to
/// what the store writes with; production stores get `none`, and reaching a step then costs
/// one branch.
///
/// The store puts its plan in effect while it holds its lock (`inEffect`), on its thread and
/// on the workers it starts (`FirstFailure`): `FileSystem` asks the plan in effect whether a
/// call fails. So a fault reaches only the store it was planned for.
///
/// The CLI makes one from `QUIRE_CRASH_AT`, `QUIRE_PAUSE_AT` and `QUIRE_STEP_LOG` (its entry
/// point is the only reader of those variables); unit tests make their own.
public final class FaultPlan: Sendable {
    /// A call that fails as if the system said `errorNumber`: `operation` as `StoreError`
    /// names it (`write`, `hard-link`, `sync`), on a path that starts with `pathPrefix`.
    public struct FileFault: Sendable {
        public var operation: String
        public var pathPrefix: String
        public var errorNumber: Int32

        public init(operation: String, pathPrefix: String, errorNumber: Int32) {
            (self.operation, self.pathPrefix, self.errorNumber) = (operation, pathPrefix, errorNumber)
        }
    }

    /// No crash, no log.
    public static let none = FaultPlan()

    private let crashAt: CrashPoint?
    /// Kill the n-th time `crashAt` is reached by this plan's stores, not before.
    private let crashOnOccurrence: Int
    private let logDescriptor: Int32
    /// The step to wait at, the first time it is reached, while the file exists.
    private let pause: (point: CrashPoint, whileExists: String)?
    private let isActive: Bool
    private let occurrences = Mutex<[CrashPoint: Int]>([:])
    private let paused = Atomic<Bool>(false)
    private let fileFaults = Mutex<[FileFault]>([])
    /// Whether `fileFaults` holds any: until then no call looks at the list.
    private let failsFiles = Atomic<Bool>(false)

    public init() {
        crashAt = nil
        crashOnOccurrence = 1
        logDescriptor = -1
        pause = nil
        isActive = false
    }

    /// `crashAt`: `<step>`, or `<step>#<n>` for the n-th time the step is reached (an unknown
    /// step never crashes); `pauseAt`: `<step>:<file>`, wait at the step's first reach (after it
    /// is logged) until the file is gone; `stepLog`: a file each step's name is appended to as it
    /// is reached.
    public init(crashAt: String?, pauseAt: String? = nil, stepLog: String?) {
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
        pause = pauseAt.flatMap { text in
            let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, let point = CrashPoint(rawValue: parts[0]), !parts[1].isEmpty else { return nil }
            return (point, parts[1])
        }
        isActive = point != nil || descriptor >= 0 || pause != nil
    }

    deinit { if logDescriptor >= 0 { close(logDescriptor) } }

    /// Call right before doing the step.
    func reach(_ point: CrashPoint) {
        guard isActive else { return }
        if logDescriptor >= 0 {
            let line = Array((point.rawValue + "\n").utf8)
            _ = line.withUnsafeBytes { write(logDescriptor, $0.baseAddress, $0.count) }
        }
        if let pause, pause.point == point, !paused.exchange(true, ordering: .relaxed) {
            while access(pause.whileExists, F_OK) == 0 { usleep(5_000) }
        }
        guard crashAt == point else { return }
        let count = occurrences.withLock { counts in
            counts[point, default: 0] += 1
            return counts[point, default: 0]
        }
        if count == crashOnOccurrence { kill(getpid(), SIGKILL) }
    }

    // MARK: - File-system faults

    /// From now on, every call `fault` describes fails while this plan is in effect.
    public func fail(_ fault: FileFault) {
        fileFaults.withLock { $0.append(fault) }
        failsFiles.store(true, ordering: .releasing)
    }

    /// No call fails any more.
    public func stopFailing() {
        failsFiles.store(false, ordering: .releasing)
        fileFaults.withLock { $0.removeAll() }
    }

    /// The error the call `operation` on `path` fails with, nil when it runs.
    func fileFault(for operation: String, path: () -> String) -> Int32? {
        guard failsFiles.load(ordering: .acquiring) else { return nil }
        let path = path()
        return fileFaults.withLock { faults in
            faults.first { $0.operation == operation && path.hasPrefix($0.pathPrefix) }?.errorNumber
        }
    }

    /// Runs `body` with this plan in effect on this thread (`FaultPlan.current`).
    func inEffect<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        try Self.run(self, body)
    }

    /// The plan in effect on this thread, if any: what `FileSystem` asks.
    static var current: FaultPlan? {
        pthread_getspecific(threadKey).map { Unmanaged<FaultPlan>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` with `plan` in effect on this thread (for a worker: the plan of the thread that
    /// started it), then puts back the one before. `.none` needs none.
    static func run<T, Failure: Error>(_ plan: FaultPlan?, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        guard let plan, plan !== FaultPlan.none else { return try body() }
        let before = pthread_getspecific(threadKey)
        pthread_setspecific(threadKey, Unmanaged.passUnretained(plan).toOpaque())
        defer { pthread_setspecific(threadKey, before) }
        return try withExtendedLifetime(plan) { () throws(Failure) -> T in try body() }
    }

    /// The thread-specific slot `run` uses (the plan is held by its caller meanwhile).
    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}
