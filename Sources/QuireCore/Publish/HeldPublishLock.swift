/// Proof that the caller holds a site's publish lock: only `StoreLock.withPublishLock` makes one,
/// and lends it to its body, which passes it on to what writes under the lock
/// (`SiteStore.publish(_:holding:)`). Borrowed and not copyable, it cannot outlive the lock.
public struct HeldPublishLock: ~Copyable {
    /// The site folder whose lock it is.
    let root: String

    /// Stops a caller that lends one site's lock to another site's store.
    func check(for layout: SiteLayout) {
        precondition(root == layout.root, "the publish lock of \(root) lent to the store of \(layout.root)")
    }
}
