import Foundation

/// A value computed on another thread while the caller does something else; `value` waits for it.
///
/// An `NSCondition` rather than a `DispatchGroup`: ThreadSanitizer sees pthread ordering, not
/// that of the uninstrumented libdispatch (see `StageClock`).
final class BackgroundValue<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Value?

    init(_ compute: @escaping @Sendable () -> Value) {
        DispatchQueue.global().async { [self] in
            let computed = compute()
            condition.withLock {
                result = computed
                condition.broadcast()
            }
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
