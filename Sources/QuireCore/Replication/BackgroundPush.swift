/// Pushes for `quire watch`: a save never waits for the network. Requests made while a push
/// runs collapse into one push after it, which carries every version published meanwhile.
public final class BackgroundPush: Sendable {
    private let queue: LatestOnlyQueue

    public init(site: String) {
        queue = LatestOnlyQueue(label: "quire.push.\(site)", durationFactor: 1)
    }

    /// Runs `push` on the push thread, after the push in progress (if any).
    public func request(_ push: @escaping @Sendable () -> Void) { queue.submit(push) }

    /// Waits for the push in progress and runs the one requested (before a watcher exits).
    public func finish() { queue.stop() }
}
