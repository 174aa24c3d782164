import CGettextPo
import Foundation

/// What a finished child process left: its standard output and how it ended.
struct ChildProcessOutput {
    enum Status: CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        var description: String {
            switch self {
            case .exited(let code): return "exit status \(code)"
            case .signaled(let signal): return "killed by signal \(signal)"
            }
        }
    }

    var stdout: [UInt8]
    var status: Status
}

struct ChildProcessError: Error {
    var reason: String

    init(_ operation: String, errno code: Int32) {
        reason = "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}

/// Runs a program with `posix_spawn` (no shell), stdin and stderr on /dev/null (or stderr with
/// stdout when `mergingStandardError`), and collects its standard output. Blocking: call it off the main queue.
/// `sharing` hands the child a descriptor as its fd 3 (`ChildProcess.sharedDescriptor`): a lock
/// held through it stays held while the child runs, even if this process dies first.
enum ChildProcess {
    static let sharedDescriptor: Int32 = 3

    static func run(
        executable: String, arguments: [String], mergingStandardError: Bool = false, sharing shared: Int32? = nil
    ) throws(ChildProcessError) -> ChildProcessOutput {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw ChildProcessError("pipe", errno: errno) }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        // Close-on-exec, so children spawned at the same time by other threads do not keep the
        // pipe open (dup2 onto stdout clears the flag for ours).
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        defer { close(readEnd) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        if mergingStandardError {
            posix_spawn_file_actions_adddup2(&actions, writeEnd, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        // Last, once the pipe is on stdout. dup2 onto another number clears close-on-exec; a
        // descriptor that already is 3 goes through 4 first (dup2 onto itself would keep the flag).
        if let shared {
            if shared == Self.sharedDescriptor {
                posix_spawn_file_actions_adddup2(&actions, shared, Self.sharedDescriptor + 1)
                posix_spawn_file_actions_adddup2(&actions, Self.sharedDescriptor + 1, Self.sharedDescriptor)
                posix_spawn_file_actions_addclose(&actions, Self.sharedDescriptor + 1)
            } else {
                posix_spawn_file_actions_adddup2(&actions, shared, Self.sharedDescriptor)
            }
        }
        closeTheRest(above: shared == nil ? 2 : Self.sharedDescriptor, &actions)

        let spawned = Result { () throws(ChildProcessError) in try spawn(executable: executable, arguments: arguments, actions: &actions) }
        close(writeEnd)
        let processID = try spawned.get()

        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count > 0 {
                output.append(contentsOf: buffer[0..<count])
                continue
            }
            if count < 0 && errno == EINTR { continue }
            break
        }
        let status = try wait(for: processID)
        return ChildProcessOutput(stdout: output, status: status)
    }

    /// Starts `executable` with `socket` as its standard input and output and stderr on
    /// /dev/null, for a child that answers requests for as long as the caller keeps it.
    static func start(executable: String, arguments: [String], socket: Int32) throws(ChildProcessError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, socket, 0)
        posix_spawn_file_actions_adddup2(&actions, socket, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        closeTheRest(above: 2, &actions)
        return try spawn(executable: executable, arguments: arguments, actions: &actions)
    }

    /// The child closes every descriptor above `last`: one another thread opened without
    /// close-on-exec (Foundation's `Pipe` does), inherited by a child that lives as long as the
    /// PO parser's, would keep that pipe from ever reaching its end for whoever reads it.
    private static func closeTheRest(above last: Int32, _ actions: inout posix_spawn_file_actions_t) {
        posix_spawn_file_actions_addclosefrom_np(&actions, last + 1)
    }

    /// Waits for a child started here to end.
    static func wait(for processID: pid_t) throws(ChildProcessError) -> ChildProcessOutput.Status {
        var rawStatus: Int32 = 0
        while waitpid(processID, &rawStatus, 0) < 0 {
            guard errno == EINTR else { throw ChildProcessError("waitpid", errno: errno) }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot import.
        let signal = rawStatus & 0x7F
        return signal == 0 ? .exited((rawStatus >> 8) & 0xFF) : .signaled(signal)
    }

    private static func spawn(
        executable: String, arguments: [String], actions: inout posix_spawn_file_actions_t
    ) throws(ChildProcessError) -> pid_t {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var processID: pid_t = 0
        let spawned = posix_spawn(&processID, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw ChildProcessError("posix_spawn \(executable)", errno: spawned) }
        return processID
    }
}
