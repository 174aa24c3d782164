import Dispatch

/// A value computed on another thread while the caller does something else; `value` waits for it.
final class BackgroundValue<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchGroup()
    // Written once on the worker before `done` is left, read only after waiting on `done`.
    private var result: Value?

    init(_ compute: @escaping @Sendable () -> Value) {
        done.enter()
        DispatchQueue.global().async { [self] in
            result = compute()
            done.leave()
        }
    }

    var value: Value {
        done.wait()
        // Set before `leave()`, which `wait()` synchronizes with.
        return result.unsafelyUnwrapped
    }
}
