import Glibc

/// A pthread of its own running one closure (the closure, and what it holds, live until it
/// returns). Joining (rather than waiting on a semaphore) lets ThreadSanitizer see that the
/// thread's writes happen before the join returns; a thread nobody waits for is detached.
struct PosixThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private let thread: pthread_t

    /// nil when the system refuses another thread.
    init?(_ run: @escaping () -> Void) {
        let body = Unmanaged.passRetained(Body(run)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, body)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(body).release()
            return nil
        }
        self.thread = thread
    }

    func join() { pthread_join(thread, nil) }

    /// Lets the thread end on its own, without a join.
    func detach() { pthread_detach(thread) }
}
