import Dispatch

/// Frees `value` on another thread. A cold build ends with tens of thousands of output files and
/// page records to free, about a fifth of what its main thread does after the last page, while
/// the other core is idle. The caller hands over its last reference (`consume`): a copy it kept
/// would free the value on its own thread after all. `group`: entered until it is freed.
func releaseInBackground<Value>(_ value: consuming Value, group: DispatchGroup? = nil) {
    // Retained once, by nothing but `box`: the release on the other thread is the last one.
    nonisolated(unsafe) let box = Unmanaged.passRetained(ReleasedBox(value))
    DispatchQueue.global(qos: .utility).async(group: group) { box.release() }
}

private final class ReleasedBox<Value> {
    let value: Value
    init(_ value: consuming Value) { self.value = value }
}
