/// Why a watcher could not start.
public enum WatchError: Error, Equatable, CustomStringConvertible {
    case notADirectory(path: String)
    case alreadyWatching(root: String)
    case inotifyUnavailable(errno: Int32, reason: String)

    public var description: String {
        switch self {
        case .notADirectory(let path):
            return "cannot watch '\(path)': not a folder; pass the pages folder with --pages"
        case .alreadyWatching(let root):
            return "cannot watch '\(root)': this process already watches a tree with inotify; stop it first"
        case .inotifyUnavailable(let code, let reason):
            return "cannot start inotify: \(reason) (errno \(code)); use --poll to watch by polling"
        }
    }
}
