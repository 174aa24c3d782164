import Foundation
import QuireCommandLine
import QuireCore

/// `quire watch --serve [HOST:]PORT`: nginx, as the watcher's child, serving `dist/` with the rules
/// of deploy/nginx.conf (`NginxRules`): the public server on PORT, the editors' on PORT+1. It
/// reloads nginx when the TTL map of a site's `current` changes (a publish, or `current` moved by
/// another process), tells each site's status page and one preview once they exist, and stops
/// nginx with the watcher.
final class WatchServing: @unchecked Sendable {
    struct Settings {
        var address: ListenAddress
        /// Take the next free pair of ports when these are taken (`./watch`), instead of failing.
        var nextFree: Bool
        var auth: NginxRules.AuthService?

        /// Nil without `--serve`.
        init?(_ arguments: Arguments) throws(UsageError) {
            guard let text = arguments.option("serve") else {
                for name in ["serve-auth", "serve-next-free"] where arguments.option(name) != nil || arguments.flag(name) {
                    throw UsageError("--\(name) needs --serve [HOST:]PORT")
                }
                return nil
            }
            guard let address = ListenAddress(text) else {
                throw UsageError("--serve must be [HOST:]PORT (for example 8080 or 127.0.0.1:8080), not '\(text)'")
            }
            self.address = address
            nextFree = arguments.flag("serve-next-free")
            auth = try arguments.option("serve-auth").map { (url: String) throws(UsageError) in try Self.authService(url) }
        }

        static func authService(_ text: String) throws(UsageError) -> NginxRules.AuthService {
            guard let url = URLComponents(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme),
                let host = url.host, !host.isEmpty, NginxRules.unservablePathCharacter(text) == nil
            else { throw UsageError("--serve-auth must be an http:// or https:// URL, not '\(text)'") }
            let port = url.port ?? (scheme == "https" ? 443 : 80)
            let path = (url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath) + (url.percentEncodedQuery.map { "?\($0)" } ?? "")
            return NginxRules.AuthService(scheme: scheme, server: "\(host.contains(":") ? "[\(host)]" : host):\(port)", path: path)
        }
    }

    private let settings: Settings
    private let dist: String
    /// dist as the command line gave it, for messages.
    private let shownDist: String
    private var nginx: NginxProcess?
    private var folder: String?
    private(set) var address: ListenAddress
    private let lock = NSLock()
    /// Per site, the identity of the TTL map nginx last loaded (device, inode, size, mtime).
    private var ttlMaps: [String: [Int]] = [:]
    private let previews: Bool
    private var links: EditorLinks?
    /// `current` also moves without a build here (a rollback or unpin from the command line, or
    /// another process): every site's TTL map is looked at twice a second. A stat a site costs
    /// nothing, and unlike inotify on each site's folder it needs no watch added for a site made
    /// later or a folder replaced, and no event can be lost to a full queue.
    private var currentCheck: (any DispatchSourceTimer)?
    private static let currentCheckInterval = DispatchTimeInterval.milliseconds(500)

    init(_ settings: Settings, dist: String, previews: Bool) {
        self.previews = previews
        self.settings = settings
        self.dist = URL(fileURLWithPath: dist).standardizedFileURL.path
        shownDist = dist
        address = settings.address
    }

    /// Starts nginx and returns once it listens. Exit 3 when nginx is missing, the ports are
    /// taken, or nginx does not start.
    func start() throws(CommandFailure) {
        guard let executable = NginxProcess.locate() else {
            throw CommandFailure(.operational, "--serve needs nginx, which is not installed (Debian: apt-get install nginx-light)")
        }
        if let character = NginxRules.unservablePathCharacter(dist) {
            throw CommandFailure(.operational, "\(dist): nginx cannot serve a folder whose path holds '\(character)'")
        }
        Self.removeLeftovers()
        address = try freeAddress()
        let folder = "\(Self.folderPrefix)\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let rules = NginxRules(
                dist: dist, publicListen: address.description, editorsListen: address.next.description, auth: settings.auth)
            try rules.standalone(folder: folder, user: Self.rootUser()).write(
                toFile: "\(folder)/nginx.conf", atomically: true, encoding: .utf8)
        } catch {
            throw CommandFailure(.operational, "cannot write nginx's configuration in \(folder): \(error.localizedDescription)")
        }
        self.folder = folder
        // The maps nginx is about to load: the first build reloads it only if it changes one.
        for site in (try? FileManager.default.contentsOfDirectory(atPath: dist)) ?? [] { ttlMaps[site] = ttlMapIdentity(site) }
        let nginx = NginxProcess(executable: executable, configuration: "\(folder)/nginx.conf", pidFile: "\(folder)/nginx.pid") {
            Console.shared.error("quire: \($0)")
        }
        do {
            try nginx.start()
        } catch {
            stop()
            throw CommandFailure(.operational, "cannot serve on \(address): \(error)")
        }
        self.nginx = nginx
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "quire.serve.current", qos: .utility))
        timer.schedule(deadline: .now() + Self.currentCheckInterval, repeating: Self.currentCheckInterval, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.reloadForMovedCurrents() }
        timer.resume()
        currentCheck = timer
        links = EditorLinks(dist: dist, editors: address.next.url, previews: previews)
        let gate = settings.auth.map { "audience variants checked by \($0.server)" } ?? "audience variants refused"
        Console.shared.error("quire: nginx serves \(shownDist): \(address.url)/ for apps (\(gate)), \(address.next.url)/ for editors")
    }

    /// nginx's folder: its configuration, pid file and temporary files, named after the watcher.
    private static let folderPrefix = FileManager.default.temporaryDirectory.appendingPathComponent("quire-nginx-").path

    /// The folders of watchers that are gone (killed with -9), and an nginx still running from one
    /// (a watcher killed in the instant between starting nginx and nginx tying itself to it).
    private static func removeLeftovers() {
        let parent = (folderPrefix as NSString).deletingLastPathComponent
        let prefix = (folderPrefix as NSString).lastPathComponent
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(prefix) {
            guard let owner = pid_t(name.dropFirst(prefix.count)), owner != getpid(), kill(owner, 0) != 0, errno == ESRCH else { continue }
            let folder = "\(parent)/\(name)"
            if let text = try? String(contentsOfFile: "\(folder)/nginx.pid", encoding: .utf8),
                let nginx = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                let command = FileManager.default.contents(atPath: "/proc/\(nginx)/cmdline"),
                String(decoding: command, as: UTF8.self).contains("\(folder)/nginx.conf")
            {
                // Gone before the ports are chosen: it may hold the ones this watcher wants.
                kill(nginx, SIGTERM)
                for _ in 0..<200 where kill(nginx, 0) == 0 { usleep(10_000) }
            }
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// The address asked for, or with `nextFree` the first free pair of ports after it.
    private func freeAddress() throws(CommandFailure) -> ListenAddress {
        var candidate = settings.address
        for _ in 0..<(settings.nextFree ? 50 : 1) where candidate.next.port < 65535 {
            let problem = candidate.unavailability() ?? candidate.next.unavailability().map { "\(candidate.next): \($0)" }
            guard let problem else {
                if candidate != settings.address {
                    Console.shared.error("quire: \(settings.address) or \(settings.address.next) is taken: serving on \(candidate) instead")
                }
                return candidate
            }
            if !settings.nextFree || !problem.hasSuffix("the port is taken") {
                throw CommandFailure(
                    .operational,
                    "cannot serve on \(candidate): \(problem) (choose another with --serve [HOST:]PORT; the editors' server takes PORT+1)")
            }
            candidate = ListenAddress(host: candidate.host, port: candidate.port + 2)
        }
        throw CommandFailure(.operational, "cannot serve: no two free ports from \(settings.address.port) on \(settings.address.host)")
    }

    /// Run as root, nginx's worker would become nobody: it runs as this process's user instead.
    private static func rootUser() -> (name: String, group: String)? {
        guard geteuid() == 0, let user = getpwuid(geteuid()), let group = getgrgid(getegid()) else { return nil }
        return (String(cString: user.pointee.pw_name), String(cString: group.pointee.gr_name))
    }

    /// After each build of `site`: reloads nginx when the TTL map it serves changed; tells the
    /// site's status page and a preview once they are on disk (`EditorLinks`).
    func built(_ result: SiteBuildResult) {
        guard nginx != nil else { return }
        if result.outcome != nil { reloadIfTTLMapChanged(result.site) }
        links?.built(result.site)
    }

    private func reloadIfTTLMapChanged(_ site: String) {
        let identity = ttlMapIdentity(site)
        if lock.withLock({ ttlMaps.updateValue(identity, forKey: site) != identity }) { nginx?.reload() }
    }

    private func reloadForMovedCurrents() {
        for site in (try? FileManager.default.contentsOfDirectory(atPath: dist)) ?? [] { reloadIfTTLMapChanged(site) }
    }

    /// What tells one TTL map file from another: versions share the file while their TTLs stay the same.
    private func ttlMapIdentity(_ site: String) -> [Int] {
        var info = stat()
        guard stat("\(dist)/\(site)/current/\(CacheHeaderFiles.nginxMapName)", &info) == 0 else { return [] }
        return [Int(info.st_dev), Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
    }

    /// Stops nginx (it frees its ports before this returns) and removes its folder.
    func stop() {
        currentCheck?.cancel()
        nginx?.stop()
        if let folder { try? FileManager.default.removeItem(atPath: folder) }
    }
}
