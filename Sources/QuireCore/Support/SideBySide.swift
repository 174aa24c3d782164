import Dispatch

/// Runs `first` and `second` at the same time, on two threads, and returns both results: for
/// two independent passes over the same data in a stretch of a build that is otherwise serial.
/// Nothing escapes: when this returns, both are done and have let go of what they captured.
func sideBySide<A: Sendable, B: Sendable>(_ first: @Sendable () -> A, _ second: @Sendable () -> B) -> (A, B) {
    let firstResult = ResultSlots<A>(count: 1)
    let secondResult = ResultSlots<B>(count: 1)
    DispatchQueue.concurrentPerform(iterations: 2) { index in
        if index == 0 { firstResult.set(0, first()) } else { secondResult.set(0, second()) }
    }
    // concurrentPerform returns after every iteration: both slots are set.
    return (firstResult.values[0]!, secondResult.values[0]!)
}
