import Foundation

/// The dashboard's saves the watcher has not published yet: which file, when, by whom. The
/// watcher asks who caused a change set before it builds it (`user(site:of:)`), and hands each build
/// back (`covered(site:paths:started:)`) to learn which saves it carried and how long after each it came.
final class SaveLedger: @unchecked Sendable {
    struct Save {
        var id: String
        var site: String
        /// Absolute, as the watcher names changed files.
        var path: String
        var user: String?
        /// `DispatchTime` nanoseconds when the file was in place.
        var at: UInt64
        /// When it was recorded, before its file changed: a build that began later read it.
        var recorded: UInt64
    }

    private let lock = NSLock()
    private var pending: [Save] = []
    private var counter = 0
    /// Saves no build has covered within this long are forgotten (their file may have been
    /// written over again, outside the dashboard).
    private let lifetime: UInt64 = 10 * 60 * 1_000_000_000

    /// The clock, read under the lock: the saves' times then follow the lock's order, so no save
    /// is stamped after a later call looks at it (its age would be below zero).
    private var clock: UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Records a save just made; returns its id.
    func record(site: String, path: String, user: String?) -> String {
        lock.withLock {
            let now = clock
            counter += 1
            let id = "s\(counter)"
            pending.removeAll { now - $0.at > lifetime }
            pending.append(Save(id: id, site: site, path: path, user: user, at: now, recorded: now))
            return id
        }
    }

    /// Takes a save back out: its write failed, nothing changed on disk.
    func forget(_ id: String) {
        lock.withLock { pending.removeAll { $0.id == id } }
    }

    /// Starts a save's clock again once its file is in place (it was recorded before, so that a
    /// build the rename sets off at once finds it).
    func written(_ id: String) {
        lock.withLock { if let index = pending.firstIndex(where: { $0.id == id }) { pending[index].at = clock } }
    }

    /// The dashboard user whose save (the newest) is among `paths` of `site` (nil: all of its files).
    func user(site: String, of paths: Set<String>?) -> String? {
        lock.withLock { pending.last { save in save.site == site && save.user != nil && (paths?.contains(save.path) ?? true) }?.user }
    }

    /// The saves of `site` a build of `paths` (nil: the whole site) that began at `started`
    /// carried, taken out of the ledger, each with the milliseconds from its save to now. A save
    /// recorded after the build began is left for the next build, which its write sets off: this
    /// one may have read the file before it changed.
    func covered(site: String, paths: Set<String>?, started: UInt64) -> [(save: Save, milliseconds: Double)] {
        lock.withLock {
            let now = clock
            let isCovered = { (save: Save) in
                save.site == site && save.recorded <= started && (paths?.contains(save.path) ?? true)
            }
            let covered = pending.filter(isCovered)
            pending.removeAll(where: isCovered)
            return covered.map { ($0, Double(now - $0.at) / 1e6) }
        }
    }
}
