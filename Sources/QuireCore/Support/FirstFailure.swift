import Foundation

/// The first error of concurrent work (NSLock: ThreadSanitizer sees it, see StageClock).
final class FirstFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var first: StoreError?

    var isSet: Bool { lock.withLock { first != nil } }
    var error: StoreError? { lock.withLock { first } }
    func set(_ error: StoreError) { lock.withLock { if first == nil { first = error } } }
}
