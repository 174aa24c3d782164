import Foundation
import QuireCore
import Synchronization

/// A child process of the benchmark: `quire build` or `quire watch` (the binary next to this one), or a tool
/// such as `stat`. Spawned with `posix_spawn` and reaped with `wait4`.
///
/// Peak memory is the child's own `VmHWM` (/proc/<pid>/status), read while it runs: `ru_maxrss`
/// keeps the high-water mark of the memory the child replaced at `exec`, which after
/// `posix_spawn` is this benchmark's, so it reported the benchmark's size (hundreds of MiB once it
/// had built a large site in-process) for every small child.
final class BenchProcess: @unchecked Sendable {
    struct Exit {
        var status: Int32
        var wallSeconds: Double
        var peakRSSKilobytes: Int
        var userSeconds: Double
        var systemSeconds: Double
    }

    /// One line the child wrote to stderr, with the monotonic time it was read.
    struct Line {
        var nanoseconds: UInt64
        var text: String
    }

    let pid: pid_t
    let started: UInt64
    private let lines = Mutex<[Line]>([])
    private var reader: Thread?

    /// The `quire` next to this executable: the benchmark measures the binary built with it.
    static var quireExecutable: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let bench = count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        return (bench as NSString).deletingLastPathComponent + "/quire"
    }

    /// Starts `executable arguments`; stdout goes to /dev/null, stderr to `stderrLog` and, when
    /// `captureStderr` is set, also line by line into `lines` (read on a thread of its own).
    init(_ executable: String, _ arguments: [String], stderrLog: String?, captureStderr: Bool = false) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        var pipeEnds: [Int32] = [-1, -1]
        if captureStderr {
            guard pipe(&pipeEnds) == 0 else { throw BenchError("pipe: \(String(cString: strerror(errno)))") }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDERR_FILENO)
            posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
            posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderrLog ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        started = DispatchTime.now().uptimeNanoseconds
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, environ)
        if captureStderr { close(pipeEnds[1]) }
        guard spawned == 0 else {
            if captureStderr { close(pipeEnds[0]) }
            throw BenchError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        pid = child
        if captureStderr {
            let descriptor = pipeEnds[0]
            let log = stderrLog.flatMap { FileHandle(forWritingAtPath: $0) ?? Self.createLog($0) }
            let thread = Thread { [self] in self.readLines(descriptor, log: log) }
            thread.start()
            reader = thread
        }
    }

    /// Nil when the log cannot be made: the lines are then only kept in memory.
    private static func createLog(_ path: String) -> FileHandle? {
        guard FileManager.default.createFile(atPath: path, contents: nil) else { return nil }
        return FileHandle(forWritingAtPath: path)
    }

    private func readLines(_ descriptor: Int32, log: FileHandle?) {
        defer {
            close(descriptor)
            try? log?.close()
        }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            let now = DispatchTime.now().uptimeNanoseconds
            log?.write(Data(buffer[0..<count]))
            pending += buffer[0..<count]
            while let newline = pending.firstIndex(of: 0x0A) {
                let text = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                lines.withLock { $0.append(Line(nanoseconds: now, text: text)) }
            }
        }
    }

    /// Every stderr line so far.
    var stderrLines: [Line] { lines.withLock { $0 } }

    /// Waits for the child and returns its status and resource usage.
    func wait() -> Exit {
        var status: Int32 = 0
        var usage = rusage()
        var peak = 0
        while true {
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid || (reaped < 0 && errno != EINTR) { break }
            peak = max(peak, peakRSSKilobytes)
            usleep(5_000)
        }
        return exited(status: status, usage: usage, peak: peak)
    }

    /// What `wait4` reported, with the wall time since the start and the peak seen while it ran.
    private func exited(status: Int32, usage: rusage, peak: Int) -> Exit {
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let time = ResourceUsage(usage)
        return Exit(
            status: exitStatus, wallSeconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9,
            peakRSSKilobytes: peak > 0 ? peak : Int(usage.ru_maxrss), userSeconds: time.user, systemSeconds: time.system)
    }

    /// The child's peak resident set so far (`VmHWM`, KiB: the kernel's high-water mark since
    /// the child started, not one moment); 0 once it has exited.
    var peakRSSKilobytes: Int { statusKilobytes("VmHWM:") }

    /// The child's resident set now (`VmRSS`, KiB); 0 once it has exited.
    var residentKilobytes: Int { statusKilobytes("VmRSS:") }

    private func statusKilobytes(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) })
        else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }

    /// The child's CPU time so far (user and system, all threads), from `/proc/<pid>/stat`; nil
    /// once it has exited.
    var cpuSeconds: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        // After the command name (which may hold spaces): state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Waits until the child's CPU time grows by less than `threshold` seconds over `window`
    /// seconds, or `timeout` passes; returns the seconds waited.
    func waitUntilIdle(window: Double = 0.25, threshold: Double = 0.01, timeout: Double = 60) -> Double {
        let started = DispatchTime.now().uptimeNanoseconds
        let deadline = started + UInt64(timeout * 1e9)
        var last = cpuSeconds
        while DispatchTime.now().uptimeNanoseconds < deadline {
            usleep(UInt32(window * 1e6))
            let now = cpuSeconds
            guard let before = last, let after = now else { break }
            if after - before < threshold { break }
            last = now
        }
        return Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    }

    /// SIGTERM, then SIGKILL if the child is still there after `grace` seconds.
    func stop(grace: Double = 10) -> Exit {
        let peak = peakRSSKilobytes
        kill(pid, SIGTERM)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(grace * 1e9)
        var status: Int32 = 0
        var usage = rusage()
        while DispatchTime.now().uptimeNanoseconds < deadline {
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid { return exited(status: status, usage: usage, peak: peak) }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        return wait()
    }

    /// Runs a short tool and returns its stdout (for `stat -f -c %T`).
    static func output(_ executable: String, _ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A benchmark that cannot go on (a child failed, a file could not be written).
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Monotonic time, for latencies.
enum BenchClock {
    static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }
    static func milliseconds(from start: UInt64, to end: UInt64) -> Double { Double(Int64(bitPattern: end &- start)) / 1e6 }
}
