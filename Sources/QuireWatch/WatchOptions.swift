/// How the watcher settles events into change sets.
public struct WatchOptions: Sendable, Equatable {
    /// A burst ends after this many seconds without events.
    public var quietWindow: Double
    /// A change set is emitted at most this many seconds after its first event, even if the
    /// burst goes on.
    public var maxDelay: Double
    /// While a burst goes on, its pending events are handed over this many seconds after the
    /// first of them, marked `moreComing`, so its pages are rendered while the rest is still
    /// being written; the set at quiet (or `maxDelay` after the first marked one) publishes.
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
