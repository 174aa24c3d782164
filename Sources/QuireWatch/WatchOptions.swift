/// How the watcher settles events into change sets.
public struct WatchOptions: Sendable, Equatable {
    /// A burst ends after this many seconds without events.
    public var quietWindow: Double
    /// A change set is emitted at most this many seconds after its first event, even if the
    /// burst goes on.
    public var maxDelay: Double
    /// The first change set of a burst (after its leading edge) is emitted at most this many
    /// seconds after its first event, so the build starts on the burst's head while the rest
    /// is still being written; later sets wait for quiet or `maxDelay`.
    public var headStart: Double
    /// When set, no inotify is used: the tree is walked every `pollInterval` seconds and the
    /// changed paths are reported (`--poll`, for file systems inotify cannot see, such as NFS).
    public var pollInterval: Double?

    public init(quietWindow: Double = 0.03, maxDelay: Double = 1.0, headStart: Double = 0.1, pollInterval: Double? = nil) {
        self.quietWindow = quietWindow
        self.maxDelay = maxDelay
        self.headStart = headStart
        self.pollInterval = pollInterval
    }
}
