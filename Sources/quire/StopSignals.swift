import Foundation

/// SIGINT and SIGTERM as a request to stop, from the instant `install` returns. A dispatch signal
/// source is no substitute: it registers later, on libdispatch's own thread, and a signal that
/// arrives before then is lost (ignored) or ends the process. Here a handler writes a byte to a
/// pipe (all a signal handler may safely do) and a thread reading the pipe calls `onStop`.
enum StopSignals {
    /// The pipe's write end, for the handler (a C function pointer captures nothing).
    nonisolated(unsafe) private static var writeEnd: Int32 = -1

    static func install(onStop: @escaping @Sendable () -> Void) {
        var ends: [Int32] = [0, 0]
        guard writeEnd < 0, pipe(&ends) == 0 else { return }
        // Close-on-exec: children (nginx, rsync, the PO parser) neither inherit the pipe nor,
        // since exec resets caught signals, the handlers.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        writeEnd = ends[1]
        let readEnd = ends[0]
        Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count == 1 { onStop() } else if count < 0 && errno == EINTR { continue } else { return }
            }
        }.start()
        var signals = sigset_t()
        sigemptyset(&signals)
        for signalNumber in [SIGINT, SIGTERM] {
            sigaddset(&signals, signalNumber)
            signal(signalNumber) { _ in
                let saved = errno
                var byte: UInt8 = 1
                _ = write(StopSignals.writeEnd, &byte, 1)
                errno = saved
            }
        }
        // A parent may start the watcher with them blocked (Foundation's Process does): they
        // reach the handler through this thread, and through the threads it starts from now on.
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }
}
