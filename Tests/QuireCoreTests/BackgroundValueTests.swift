import Dispatch
import Testing

@testable import QuireCore

@Suite struct BackgroundValueTests {
    @Test func theValueIsComputedWhileTheCallerGoesOn() {
        let callerWentOn = DispatchSemaphore(value: 0)
        // Computed in the initializer's thread, this would wait in vain and give -1.
        let value = BackgroundValue { callerWentOn.wait(timeout: .now() + 10) == .success ? 42 : -1 }
        callerWentOn.signal()
        #expect(value.value == 42)
        #expect(value.value == 42, "read again, the same value")
    }

    @Test func manyReadersAllGetTheValue() {
        let value = BackgroundValue { (1...1_000).reduce(0, +) }
        let results = ResultSlots<Int>(count: 8)
        DispatchQueue.concurrentPerform(iterations: 8) { results.set($0, value.value) }
        #expect(results.values == Array(repeating: 500_500, count: 8))
    }
}
