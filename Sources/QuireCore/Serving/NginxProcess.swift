import Foundation
import Glibc

public struct NginxError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// nginx as a child of this process: its master in the foreground (`daemon off`), in a process
/// group of its own (Ctrl-C reaches the watcher, which stops it in order), started through
/// `setpriv --pdeathsig TERM` so that it shuts down with its workers when this process dies, even
/// by SIGKILL (a master killed outright would leave its workers holding the port). Its stderr
/// lines go to `log`. Start it from a thread that lives as long as the process: the kernel sends
/// the parent-death signal when the spawning *thread* ends.
public final class NginxProcess: @unchecked Sendable {
    private let executable: String
    private let configuration: String
    private let pidFile: String
    private let log: @Sendable (String) -> Void
    private let lock = NSLock()
    private var processID: pid_t = 0
    private var exitStatus: Int32?
    private var stopping = false
    private var starting = true
    private var startupLines: [String] = []
    private let exited = DispatchSemaphore(value: 0)

    /// nginx from PATH, or from the sbin folders a user's PATH often lacks; nil when not installed.
    public static func locate() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/sbin"]
        return folders.map { "\($0)/nginx" }.first { (file: String) in access(file, X_OK) == 0 }
    }

    static let setpriv: String? = ["/usr/bin/setpriv", "/bin/setpriv"].first { (path: String) in access(path, X_OK) == 0 }

    /// `configuration` is the file `nginx -c` reads; `pidFile` the path its `pid` directive names.
    public init(executable: String, configuration: String, pidFile: String, log: @escaping @Sendable (String) -> Void) {
        self.executable = executable
        self.configuration = configuration
        self.pidFile = pidFile
        self.log = log
    }

    /// Starts nginx and returns once it listens (it writes its pid file after binding its ports and
    /// setting up its signals); throws with nginx's own messages when it exits or hangs instead.
    public func start(timeout: Double = 10) throws(NginxError) {
        guard let setpriv = Self.setpriv else { throw NginxError("setpriv (util-linux) is not installed") }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw NginxError("pipe: \(String(cString: strerror(errno)))") }
        // Close-on-exec, so no other child keeps the pipe open (dup2 onto nginx's stderr clears it there).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let spawned = Self.spawn(
            [setpriv, "--pdeathsig", "TERM", "--", executable, "-e", "stderr", "-c", configuration], stderr: ends[1])
        close(ends[1])
        guard case .success(let pid) = spawned else {
            close(ends[0])
            if case .failure(let error) = spawned { throw error }
            return
        }
        lock.withLock { processID = pid }
        startThreads(pid: pid, stderr: ends[0])

        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let status = lock.withLock({ exitStatus }) {
                let said = lock.withLock { startupLines }.joined(separator: "; ")
                throw NginxError("nginx did not start (\(Self.describe(status)))\(said.isEmpty ? "" : ": \(said)")")
            }
            if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
                Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) == pid
            {
                let said = lock.withLock {
                    starting = false
                    return startupLines
                }
                for line in said { log("nginx: \(line)") }
                return
            }
            if Date() > deadline {
                stop()
                throw NginxError("nginx did not start within \(Int(timeout)) s")
            }
            usleep(10_000)
        }
    }

    /// Makes nginx read its configuration again (and the files it includes), without a moment
    /// of not listening.
    public func reload() {
        lock.withLock { if processID > 0 && exitStatus == nil { kill(processID, SIGHUP) } }
    }

    /// Stops nginx (its workers finish the requests they hold, briefly) and waits for it.
    public func stop(timeout: Double = 5) {
        let pid: pid_t = lock.withLock {
            stopping = true
            return exitStatus == nil ? processID : 0
        }
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            kill(-pid, SIGKILL)  // the master and its workers: the group is theirs alone
            _ = exited.wait(timeout: .now() + timeout)
        }
    }

    public var isRunning: Bool { lock.withLock { processID > 0 && exitStatus == nil } }

    private func startThreads(pid: pid_t, stderr: Int32) {
        PosixThread { [self] in
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(stderr, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                pending += buffer[0..<count]
                while let newline = pending.firstIndex(of: 10) {
                    line(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            if !pending.isEmpty { line(String(decoding: pending, as: UTF8.self)) }
            close(stderr)
        }?.detach()
        PosixThread { [self] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let expected = lock.withLock {
                exitStatus = status
                return stopping
            }
            if !expected { log("nginx stopped (\(Self.describe(status))): dist/ is no longer served") }
            exited.signal()
        }?.detach()
    }

    /// One line nginx wrote: `2026/12/03 06:29:13 [emerg] 8947#8947: bind() ...` told as `emerg: bind() ...`.
    private func line(_ text: String) {
        var said = text
        if let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]"),
            let colon = text[close...].range(of: ": ")
        {
            said = "\(text[text.index(after: open)..<close]): \(text[colon.upperBound...])"
        }
        said = said.hasPrefix("nginx: ") ? String(said.dropFirst(7)) : said
        // While starting, lines are kept for the error if it fails, and told once it listens.
        let kept = lock.withLock {
            if self.starting { startupLines.append(said) }
            return self.starting
        }
        if !kept { log("nginx: \(said)") }
    }

    private static func describe(_ status: Int32) -> String {
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot import.
        let signal = status & 0x7F
        return signal == 0 ? "exit status \((status >> 8) & 0xFF)" : "killed by signal \(signal)"
    }

    /// posix_spawn with stdin and stdout on /dev/null, stderr on `stderr`, a new process group,
    /// default signal handling and an empty signal mask (the watcher ignores SIGINT and SIGTERM).
    private static func spawn(_ arguments: [String], stderr: Int32) -> Result<pid_t, NginxError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2, SIGWINCH] { sigaddset(&defaults, signal) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
        guard status == 0 else { return .failure(NginxError("cannot start \(arguments[0]): \(String(cString: strerror(status)))")) }
        return .success(pid)
    }
}
