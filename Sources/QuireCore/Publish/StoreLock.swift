import Synchronization

/// Takes a site's publish lock. Whatever writes a version, the pin or `current` needs it: it is
/// taken once (`withPublishLock`) and lent to what writes as a `HeldPublishLock`; the ops take it
/// with their own timeout (`withOperationLock`). It is not re-entrant: one taker, one holder.
/// Before each holder's body, what a crashed or stopped process left is put right (`StoreRecovery`).
final class StoreLock: Sendable {
    private let layout: SiteLayout
    private let site: String
    private let recovery: StoreRecovery
    /// In effect while the lock is held: every write of the store happens then.
    private let faults: FaultPlan

    private struct OperationWait {
        var timeout: Double = 30
        var waiting: @Sendable (String) -> Void = { _ in }
    }

    /// How long the ops (rollback, unpin, gc, ...) wait for the lock, and whom they tell they are waiting.
    private let operationWait = Mutex(OperationWait())

    init(layout: SiteLayout, site: String, recovery: StoreRecovery, faults: FaultPlan) {
        self.layout = layout
        self.site = site
        self.recovery = recovery
        self.faults = faults
    }

    var operationTimeout: Double {
        get { operationWait.withLock { $0.timeout } }
        set { operationWait.withLock { $0.timeout = newValue } }
    }

    var operationWaiting: @Sendable (String) -> Void {
        get { operationWait.withLock { $0.waiting } }
        set { operationWait.withLock { $0.waiting = newValue } }
    }

    /// Runs `body` holding the lock, which it lends to `body`; `waiting` is told once when another
    /// process holds it; throws after `timeout` seconds.
    func withPublishLock<T>(
        timeout: Double, waiting: (String) -> Void,
        _ body: (borrowing HeldPublishLock) throws -> T
    ) throws -> T {
        let lock = try PublishLock(path: layout.lock, site: site, timeout: timeout, waiting: waiting)
        let held = HeldPublishLock(root: layout.root)
        let result = Result { () throws -> T in
            try faults.inEffect { () throws -> T in
                let removesLeftoversAfter = try recovery.recover(holding: held)
                defer { if removesLeftoversAfter { try? recovery.removeLeftovers(holding: held) } }
                return try body(held)
            }
        }
        _ = consume lock
        return try result.get()
    }

    /// The lock for the ops, taken with `operationTimeout`.
    func withOperationLock<T>(_ body: (borrowing HeldPublishLock) throws(StoreError) -> T) throws(StoreError) -> T {
        let wait = operationWait.withLock { $0 }
        do {
            return try withPublishLock(timeout: wait.timeout, waiting: wait.waiting) { held in try body(held) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError("\(error)")
        }
    }
}
