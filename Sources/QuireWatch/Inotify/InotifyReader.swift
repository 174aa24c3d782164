internal import CInotifyTools
import Dispatch
import Foundation
import QuireCore
import Synchronization

/// libinotifytools keeps one process-wide inotify instance and watch table: one reader at a time.
private let inotifyToolsClaimed = Mutex<Bool>(false)

/// Owns libinotifytools: adds the watches, reads events on one dedicated thread, and turns them
/// into `WatchEvent`s for the settle queue.
///
/// Every libinotifytools call happens either in `start()` before the thread exists or on that
/// thread, so the library's static state is never shared. The thread-only state below is
/// therefore safe despite `@unchecked Sendable`.
///
/// Folders need care (ARCHITECTURE.md, "Known traps"): a folder created or moved in is watched and then listed,
/// so files written before its watch existed are still reported; a renamed folder keeps its
/// watches, renamed with `inotifytools_replace_filename`; a folder moved out of the tree loses
/// its watches; a deleted folder's table entries are renamed out of the way, so a new folder of
/// the same name gets a clean entry.
final class InotifyReader: @unchecked Sendable {
    private static let eventMask = Int32(
        bitPattern:
            UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM) | UInt32(IN_CREATE)
            | UInt32(IN_DELETE) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_ATTRIB)
            | UInt32(IN_DONT_FOLLOW) | UInt32(IN_ONLYDIR))

    /// How long `stop()` keeps reading (and dropping) events so that the library's static event
    /// buffer is empty for the next reader.
    private static let drainLimit = 1.0

    private let root: String
    private let rootPrefix: String
    private let log: @Sendable (String) -> Void
    private let deliver: @Sendable ([WatchEvent]) -> Void
    private let onWatchLimit: @Sendable () -> Void
    /// Pretends the kernel's watch limit is this many watches (tests; the real limit is
    /// system-wide and shared).
    private let watchBudget: Int?

    private let state = Atomic<Int>(State.idle)
    private let finished = DispatchSemaphore(value: 0)

    // Reader-thread state.
    private var watchedFolders = Set<String>()  // each with a trailing "/", as the library keeps them
    private var pendingMoveAway: (cookie: UInt32, path: String)?
    private var retiredCount = 0
    private var watchLimitReached = false
    private var rootLost = false
    /// Regular files created and not yet closed by their writer, with when they appeared: not
    /// reported until the close (a half-written page is never built), or until they have been
    /// still for a while (a hard link or `mknod` never sends a close).
    private var beingWritten: [String: Double] = [:]

    private enum State {
        static let idle = 0, running = 1, stopping = 2
    }

    /// - Parameters:
    ///   - deliver: called on the reader thread with the events of each inotify event.
    ///   - onWatchLimit: called once, after the reader has shut down, when a folder could not be
    ///     watched for lack of inotify watches: watch by polling from then on.
    init(
        root: String, log: @escaping @Sendable (String) -> Void,
        deliver: @escaping @Sendable ([WatchEvent]) -> Void, onWatchLimit: @escaping @Sendable () -> Void,
        watchBudget: Int? = nil
    ) {
        self.watchBudget = watchBudget
        self.root = root
        self.rootPrefix = root.hasSuffix("/") ? root : root + "/"
        self.log = log
        self.deliver = deliver
        self.onWatchLimit = onWatchLimit
    }

    /// Watches the tree and starts the reader thread. Returns false when the watch limit was
    /// reached while adding the watches (logged; nothing keeps running): poll instead.
    func start() throws -> Bool {
        let claimed = inotifyToolsClaimed.withLock { claimed in
            if claimed { return false }
            claimed = true
            return true
        }
        guard claimed else { throw WatchError.alreadyWatching(root: root) }
        guard inotifytools_initialize() != 0 else {
            let code = inotifytools_error()
            releaseLibrary()
            throw WatchError.inotifyUnavailable(errno: code, reason: Self.reason(for: code))
        }
        DirectoryWalker.visitFolders(root) { watchFolder($0) }
        if watchLimitReached {
            releaseLibrary()
            return false
        }
        state.store(State.running, ordering: .sequentiallyConsistent)
        let thread = Thread { [self] in readEvents() }
        thread.name = "quire.watch.inotify"
        thread.start()
        return true
    }

    /// Stops the reader thread and waits for it (about a second: the read timeout).
    func stop() {
        let (exchanged, _) = state.compareExchange(
            expected: State.running, desired: State.stopping, ordering: .sequentiallyConsistent)
        guard exchanged else { return }
        if finished.wait(timeout: .now() + 3 * Self.drainLimit) == .timedOut {
            log("the inotify reader did not stop within \(Int(3 * Self.drainLimit)) s; it stops after its next event")
        }
    }

    // MARK: - Reader thread

    private func readEvents() {
        var drainDeadline: Double?
        while true {
            let event = inotifytools_next_event(1)
            if state.load(ordering: .sequentiallyConsistent) == State.stopping {
                let deadline = drainDeadline ?? Self.now() + Self.drainLimit
                drainDeadline = deadline
                if event == nil || Self.now() > deadline { break }
                continue
            }
            var events: [WatchEvent] = []
            if let event {
                translate(event, into: &events)
            } else {
                settlePendingMoveAway()
                let code = inotifytools_error()
                if code != 0 && code != EINTR {
                    log("reading inotify events failed: \(Self.reason(for: code)) (errno \(code)); rescanning")
                    events.append(.rescan)
                    Thread.sleep(forTimeInterval: 1)
                }
            }
            reportStillFiles(into: &events)
            if watchLimitReached { events.append(.rescan) }
            if !events.isEmpty { deliver(events) }
            if watchLimitReached { break }
        }
        releaseLibrary()
        let fellBack = watchLimitReached
        finished.signal()
        if fellBack { onWatchLimit() }
    }

    private func translate(_ event: UnsafeMutablePointer<inotify_event>, into events: inout [WatchEvent]) {
        let mask = event.pointee.mask
        let cookie = event.pointee.cookie
        if let away = pendingMoveAway, !(mask & UInt32(IN_MOVED_TO) != 0 && cookie == away.cookie) {
            // A folder moved away without its pair moved out of the tree.
            settlePendingMoveAway()
        }
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            log("the inotify queue overflowed and events were lost: rescanning the whole tree")
            DirectoryWalker.visitFolders(root) { watchFolder($0) }
            events.append(.rescan)
            return
        }
        let folder = String(cString: inotifytools_filename_from_wd(event.pointee.wd))
        // Unknown watches, and watches retired with their deleted folder, map outside the root.
        guard folder.hasPrefix(rootPrefix) else { return }
        let name = String(cString: quire_inotify_event_name(event))
        if name.isEmpty {
            // An event on a watched folder itself: only the root's loss matters; for the others
            // the parent reports the deletion or move.
            let lost = UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_IGNORED)
            if folder == rootPrefix && mask & lost != 0 && !rootLost {
                rootLost = true
                log("the watched folder '\(root)' was deleted or moved: changes are no longer seen; restart the watcher")
                events.append(.rescan)
            }
            return
        }
        // By name, before anything looks at the file: emacs lock files are dangling symlinks.
        if EditorTempFiles.isIgnored(name) { return }
        let path = folder + name
        if mask & UInt32(IN_ISDIR) != 0 {
            translateFolderEvent(mask: mask, cookie: cookie, path: path, into: &events)
        } else if mask & (UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO)) != 0 {
            beingWritten[path] = nil
            events.append(.finishedWrite(path))
        } else if mask & UInt32(IN_CREATE) != 0, Self.isRegularFile(path) {
            beingWritten[path] = Self.now()
        } else if beingWritten[path] != nil, mask & (UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM)) == 0 {
            return  // attributes set while it is still being written
        } else {
            beingWritten[path] = nil
            events.append(.changed(path))
        }
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Files created without a close after writing: reported once unmodified for half a second
    /// (at most ten seconds after they appeared, so a stuck writer cannot hide a file forever).
    private func reportStillFiles(into events: inout [WatchEvent]) {
        guard !beingWritten.isEmpty else { return }
        let now = Self.now()
        for (path, since) in beingWritten where now - since > 1 {
            var info = stat()
            let exists = lstat(path, &info) == 0
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            let wallNow = Date().timeIntervalSince1970
            guard !exists || wallNow - modified > 0.5 || now - since > 10 else { continue }
            beingWritten[path] = nil
            events.append(.changed(path))
        }
    }

    private func translateFolderEvent(mask: UInt32, cookie: UInt32, path: String, into events: inout [WatchEvent]) {
        events.append(.changed(path))
        if mask & UInt32(IN_MOVED_FROM) != 0 {
            pendingMoveAway = (cookie, path)
        } else if mask & UInt32(IN_MOVED_TO) != 0 {
            if let away = pendingMoveAway, away.cookie == cookie {
                renameWatches(from: away.path, to: path)
                pendingMoveAway = nil
            }
            events += watchTree(path).map(WatchEvent.finishedWrite)
        } else if mask & UInt32(IN_CREATE) != 0 {
            events += watchTree(path).map(WatchEvent.changed)
        } else if mask & UInt32(IN_DELETE) != 0 {
            let retired = retireWatches(under: path)
            // Deleted and made again before this event was read: the watches set up for the new
            // folder (when its creation was read, after the fact) were just retired with the old
            // ones, and the kernel hands the same watch back for the same folder. Drop them and
            // watch the new folder afresh, reporting what it holds.
            if Self.isDirectory(path) {
                for name in retired { inotifytools_remove_watch_by_filename(name) }
                events += watchTree(path).map(WatchEvent.changed)
            }
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Watches every folder under `folder` not watched yet, each before it is listed, and
    /// returns the paths of the other entries found (files written before the watch existed).
    private func watchTree(_ folder: String) -> [String] {
        let listing = DirectoryWalker.walk(folder) { watchFolder($0) }
        return listing.entries.keys.sorted()
    }

    private func watchFolder(_ folder: String) {
        let key = folder.hasSuffix("/") ? folder : folder + "/"
        guard !watchLimitReached, !watchedFolders.contains(key) else { return }
        let code: Int32
        if let watchBudget, watchedFolders.count >= watchBudget {
            code = ENOSPC
        } else if inotifytools_watch_file(folder, Self.eventMask) != 0 {
            watchedFolders.insert(key)
            return
        } else {
            code = inotifytools_error()
        }
        switch code {
        case ENOENT, ENOTDIR:
            break  // gone or replaced meanwhile; its parent reports that
        case ENOSPC:
            watchLimitReached = true
            log(
                "cannot watch '\(folder)': the inotify watch limit is reached "
                    + "(/proc/sys/fs/inotify/max_user_watches is \(inotifytools_get_max_user_watches())); "
                    + "raise it with 'sysctl fs.inotify.max_user_watches=524288'. "
                    + "watching by rescanning the tree every \(Int(PageWatcher.fallbackPollInterval)) s meanwhile")
        default:
            log("cannot watch '\(folder)': \(Self.reason(for: code)) (errno \(code)); changes in it are not seen")
        }
    }

    private func renameWatches(from oldPath: String, to newPath: String) {
        let oldPrefix = oldPath + "/"
        let newPrefix = newPath + "/"
        inotifytools_replace_filename(oldPrefix, newPrefix)
        for key in watchedFolders where key.hasPrefix(oldPrefix) {
            watchedFolders.remove(key)
            watchedFolders.insert(newPrefix + key.dropFirst(oldPrefix.count))
        }
    }

    /// The kernel dropped the watches of a deleted folder; the library keeps their entries.
    /// Renamed outside the root, they can neither map late events into the tree nor collide
    /// with a new folder of the same name.
    /// Returns the retired names.
    @discardableResult
    private func retireWatches(under path: String) -> [String] {
        let prefix = path + "/"
        let retired = watchedFolders.filter { $0.hasPrefix(prefix) }
        guard !retired.isEmpty else { return [] }
        retiredCount += 1
        let retiredPrefix = "\u{1}retired-\(retiredCount)/"
        inotifytools_replace_filename(prefix, retiredPrefix)
        watchedFolders.subtract(retired)
        return retired.map { retiredPrefix + $0.dropFirst(prefix.count) }
    }

    /// A folder moved out of the tree is still watched by the kernel: remove its watches.
    private func settlePendingMoveAway() {
        guard let away = pendingMoveAway else { return }
        pendingMoveAway = nil
        let prefix = away.path + "/"
        for key in watchedFolders where key.hasPrefix(prefix) {
            inotifytools_remove_watch_by_filename(key)
            watchedFolders.remove(key)
        }
    }

    private func releaseLibrary() {
        inotifytools_cleanup()
        watchedFolders.removeAll()
        inotifyToolsClaimed.withLock { $0 = false }
    }

    private static func reason(for code: Int32) -> String {
        switch code {
        case EMFILE:
            return "too many inotify instances (/proc/sys/fs/inotify/max_user_instances); "
                + "raise it with 'sysctl fs.inotify.max_user_instances=1024'"
        case ENOSPC:
            return "the inotify watch limit is reached (/proc/sys/fs/inotify/max_user_watches); "
                + "raise it with 'sysctl fs.inotify.max_user_watches=524288'"
        default:
            return String(cString: strerror(code))
        }
    }

    private static func now() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
    }
}
