import Foundation

/// The PO parser children (`quire __parse-po`), kept between files: starting one costs a process
/// start (about 14 ms for a release `quire`), parsing a translated page about half a millisecond,
/// so a site's thousands of PO files must not each start one. A child parses file after file until
/// libgettextpo's fatal-error path ends it or it has parsed its share
/// (`POFileParser.filesPerChild`); each thread that parses at the same time has a child of its own.
final class POParserPool: @unchecked Sendable {
    static let shared = POParserPool()

    // NSLock rather than Mutex: ThreadSanitizer sees its ordering (see StageClock).
    private let lock = NSLock()
    private var idle: [String: [POParserChild]] = [:]
    /// Idle children beyond this many per program are ended: a build parses on at most this many threads.
    private let idleLimit = WideConcurrentPerform.defaultWidth

    enum Failure: Error {
        case cannotStart(ChildProcessError)
        case stopped(ChildProcessOutput.Status?)
    }

    /// Parses the PO file `bytes` in a child running `executable __parse-po`.
    func parse(_ bytes: [UInt8], executable: String) throws(Failure) -> POParseOutput {
        let request = POParserFrame.framed(bytes)
        // A kept child may have died since its last answer (killed, or out of memory): then a
        // new one decides whether this file is the problem.
        if let child = take(executable) {
            if let output = answer(child.parse(request), from: child, executable: executable) { return output }
            _ = child.end()
        }
        let child: POParserChild
        do { child = try POParserChild(executable: executable) } catch { throw .cannotStart(error) }
        guard let output = answer(child.parse(request), from: child, executable: executable) else {
            throw .stopped(child.end())
        }
        return output
    }

    /// Ends the idle children of `executable`; the next parse starts a new one.
    func endIdleChildren(of executable: String) {
        let children = lock.withLock { idle.removeValue(forKey: executable) ?? [] }
        for child in children { _ = child.end() }
    }

    private func answer(_ answer: POParserChild.Answer, from child: POParserChild, executable: String) -> POParseOutput? {
        switch answer {
        case .output(let output) where output.parserEnds:
            _ = child.end()
            return output
        case .output(let output):
            keep(child, executable: executable)
            return output
        case .none:
            return nil
        }
    }

    private func take(_ executable: String) -> POParserChild? {
        lock.withLock { idle[executable]?.popLast() }
    }

    private func keep(_ child: POParserChild, executable: String) {
        let kept = lock.withLock {
            guard idle[executable, default: []].count < idleLimit else { return false }
            idle[executable, default: []].append(child)
            return true
        }
        if !kept { _ = child.end() }
    }
}

/// One `quire __parse-po` child on a socket: it reads files, each a `POParserFrame` of its bytes,
/// on its standard input and answers each with a frame of `POParseOutput` on its standard output.
final class POParserChild {
    enum Answer {
        case output(POParseOutput)
        /// The child is gone, or answered something that is not an answer.
        case none
    }

    private let processID: pid_t
    private let socket: Int32
    /// Kept for the child's life: a site's files are parsed one after another through it.
    private var buffer = [UInt8](repeating: 0, count: 65536)

    init(executable: String) throws(ChildProcessError) {
        var ends: [Int32] = [0, 0]
        // Close-on-exec, so children started by other threads do not hold this socket open (the
        // child's own copies, dup2'ed onto 0 and 1, lose the flag).
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw ChildProcessError("socketpair", errno: errno)
        }
        let started = Result { () throws(ChildProcessError) in
            try ChildProcess.start(executable: executable, arguments: [POFileParser.childArgument], socket: ends[1])
        }
        close(ends[1])
        do { processID = try started.get() } catch {
            close(ends[0])
            throw error
        }
        socket = ends[0]
    }

    /// Sends `request` (a framed file) and waits for the answer's frame.
    func parse(_ request: [UInt8]) -> Answer {
        guard StreamSocket.send(socket, request) else { return .none }
        var received: [UInt8] = []
        while true {
            if let frame = POParserFrame.take(from: &received) {
                guard received.isEmpty, let output = try? POParseOutput(decoding: frame) else { return .none }
                return .output(output)
            }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return .none }
            received.append(contentsOf: buffer[0..<count])
        }
    }

    /// Closes the socket (a living child reads the end of its input and exits) and waits for the child.
    func end() -> ChildProcessOutput.Status? {
        close(socket)
        return try? ChildProcess.wait(for: processID)
    }
}

/// How the parent and a child delimit a file and an answer on their socket: a count of bytes (4,
/// little-endian), then the bytes.
enum POParserFrame {
    static func framed(_ payload: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { Array($0) } + payload
    }

    /// The first whole frame's payload, taken off `pending`; nil while it has not all arrived.
    static func take(from pending: inout [UInt8]) -> [UInt8]? {
        guard pending.count >= 4 else { return nil }
        let count = pending.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
        guard pending.count >= 4 + count else { return nil }
        let payload = Array(pending[4..<4 + count])
        pending.removeFirst(4 + count)
        return payload
    }
}
