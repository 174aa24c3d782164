/// One thing the watcher saw, before settling.
struct WatchEvent: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// A write finished: close after writing, or a file moved into place (the rename at the
        /// end of a safe save). On an idle tree this is published at once.
        case finishedWrite
        /// Anything else: created, deleted, moved away, attributes changed, found by a scan.
        case changed
        /// Events were lost: the consumer must rescan the whole tree.
        case rescan
    }

    var path: String
    var kind: Kind

    static func finishedWrite(_ path: String) -> WatchEvent { WatchEvent(path: path, kind: .finishedWrite) }
    static func changed(_ path: String) -> WatchEvent { WatchEvent(path: path, kind: .changed) }
    static let rescan = WatchEvent(path: "", kind: .rescan)
}
