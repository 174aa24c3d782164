import Foundation

/// A value computed on another thread while the caller does something else; `value` waits for it.
///
/// An `NSCondition` rather than a `DispatchGroup`: ThreadSanitizer sees pthread ordering, not
/// that of the uninstrumented libdispatch (see `StageClock`).
final class BackgroundValue<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Value?

    init(_ compute: @escaping @Sendable () -> Value) {
        DispatchQueue.global().async { [self] in set(compute()) }
    }

    /// A value that other work sets (`set`), once, as it goes on: that work is one task, not a
    /// second waiting for the first. A task that waits holds one of the global queue's threads,
    /// one a core, and the tasks queued behind it wait too.
    init() {}

    func set(_ value: Value) {
        condition.withLock {
            result = value
            condition.broadcast()
        }
    }

    var value: Value {
        condition.withLock {
            while true {
                if let result { return result }
                condition.wait()
            }
        }
    }
}
