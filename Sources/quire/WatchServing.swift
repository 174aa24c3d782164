import Foundation
import QuireCommandLine
import QuireCore
import QuireDashboard

/// `quire watch --serve [HOST:]PORT`: nginx, as the watcher's child, serving `dist/` with the rules
/// of deploy/nginx.conf (`NginxRules`): the public server on PORT, the editors' on PORT+1. It
/// reloads nginx when the TTL map of a site's `current` changes (a publish, or `current` moved by
/// another process), tells each site's status page and one preview once they exist, and stops
/// nginx with the watcher.
final class WatchServing: @unchecked Sendable {
    struct Settings {
        var address: ListenAddress
        /// `--editors-listen`; nil: loopback, on the port after the apps'.
        var editorsAddress: ListenAddress?
        /// Take the next free pair of ports when these are taken (`./watch`), instead of failing.
        var nextFree: Bool
        var auth: NginxRules.AuthService?
        var editorsAuth: NginxRules.EditorsAuth?

        /// Nil without `--serve`.
        init?(_ arguments: Arguments) throws(UsageError) {
            guard let text = arguments.value(.serve) else {
                let needing: [(name: any CustomStringConvertible, given: Bool)] = [
                    (OptionName.serveAuth, arguments.isGiven(.serveAuth)), (FlagName.serveNextFree, arguments.flag(.serveNextFree)),
                    (OptionName.editorsListen, arguments.isGiven(.editorsListen)),
                    (OptionName.editorsAuth, arguments.isGiven(.editorsAuth)),
                    (OptionName.editorsUserHeader, arguments.isGiven(.editorsUserHeader)),
                    (OptionName.editorsGroupsHeader, arguments.isGiven(.editorsGroupsHeader)),
                ]
                if let given = needing.first(where: \.given) { throw UsageError("\(given.name) needs --serve [HOST:]PORT") }
                return nil
            }
            guard let address = ListenAddress(text) else {
                throw UsageError("--serve must be [HOST:]PORT (for example 8080 or 127.0.0.1:8080), not '\(text)'")
            }
            self.address = address
            nextFree = arguments.flag(.serveNextFree)
            auth = try arguments.value(.serveAuth).map { (url: String) throws(UsageError) in
                try Self.authService(url, option: .serveAuth)
            }
            editorsAddress = try arguments.value(.editorsListen).map { (text: String) throws(UsageError) in
                guard let editors = ListenAddress(text) else {
                    throw UsageError("--editors-listen must be [HOST:]PORT (for example 127.0.0.1:8081), not '\(text)'")
                }
                return editors
            }
            editorsAuth = try arguments.value(.editorsAuth).map { (url: String) throws(UsageError) in
                var gate = NginxRules.EditorsAuth(service: try Self.authService(url, option: .editorsAuth))
                for (option, header) in [
                    (OptionName.editorsUserHeader, \NginxRules.EditorsAuth.userHeader), (.editorsGroupsHeader, \.groupsHeader),
                ] {
                    guard let name = arguments.value(option) else { continue }
                    guard NginxRules.EditorsAuth.isHeaderName(name) else {
                        throw UsageError("\(option) must be a header name (letters, digits and '-'), not '\(name)'")
                    }
                    gate[keyPath: header] = name
                }
                return gate
            }
            if editorsAuth == nil {
                for name in [OptionName.editorsUserHeader, .editorsGroupsHeader] where arguments.isGiven(name) {
                    throw UsageError("\(name) needs --editors-auth URL")
                }
            }
            if let editorsAddress, !editorsAddress.isLoopback, editorsAuth == nil {
                throw UsageError(
                    "--editors-listen \(editorsAddress) is reachable from other machines, and the editors' listener serves drafts, "
                        + "status and audience-only sections: gate it with --editors-auth URL (a sign-in service such as oauth2-proxy), "
                        + "or listen on 127.0.0.1")
            }
        }

        static func authService(_ text: String, option: OptionName) throws(UsageError) -> NginxRules.AuthService {
            guard let url = URLComponents(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme),
                let host = url.host, !host.isEmpty, NginxRules.unservablePathCharacter(text) == nil
            else { throw UsageError("\(option) must be an http:// or https:// URL, not '\(text)'") }
            let port = url.port ?? (scheme == "https" ? 443 : 80)
            let path = (url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath) + (url.percentEncodedQuery.map { "?\($0)" } ?? "")
            return NginxRules.AuthService(scheme: scheme, server: "\(host.contains(":") ? "[\(host)]" : host):\(port)", path: path)
        }

        /// The editors' address for apps on `address`: as given, else loopback on the next port.
        func editors(for address: ListenAddress) -> ListenAddress {
            editorsAddress
                ?? ListenAddress(host: address.host == "::1" || address.host == "::" ? "::1" : "127.0.0.1", port: address.port + 1)
        }
    }

    private let settings: Settings
    private let dist: String
    /// dist as the command line gave it, for messages.
    private let shownDist: String
    private var nginx: NginxProcess?
    private var folder: NginxFolder?
    private(set) var address: ListenAddress
    private(set) var editorsAddress: ListenAddress
    private let lock = NSLock()
    /// Per site, the identity of the TTL map nginx last loaded (device, inode, size, mtime).
    private var ttlMaps: [String: [Int]] = [:]
    private let previews: Bool
    private var links: EditorLinks?
    /// The dashboard's editing service, started on a socket in nginx's folder before nginx.
    private let dashboard: DashboardService?
    /// `current` also moves without a build here (a rollback or unpin from the command line, or
    /// another process): every site's TTL map is looked at twice a second. A stat a site costs
    /// nothing, and unlike inotify on each site's folder it needs no watch added for a site made
    /// later or a folder replaced, and no event can be lost to a full queue.
    private var currentCheck: (any DispatchSourceTimer)?
    private static let currentCheckInterval = DispatchTimeInterval.milliseconds(500)

    init(_ settings: Settings, dist: String, previews: Bool, dashboard: DashboardService?) {
        self.previews = previews
        self.dashboard = dashboard
        self.settings = settings
        self.dist = URL(fileURLWithPath: dist).standardizedFileURL.path
        shownDist = dist
        address = settings.address
        editorsAddress = settings.editors(for: settings.address)
    }

    /// Starts nginx and returns once it listens. Exit 3 when nginx is missing, the ports are
    /// taken, its workers could not read dist/, or nginx does not start.
    func start() throws(CommandFailure) {
        guard let executable = NginxProcess.locate() else {
            throw CommandFailure(.operational, "--serve needs nginx, which is not installed (Debian: apt-get install nginx-light)")
        }
        if let character = NginxRules.unservablePathCharacter(dist) {
            throw CommandFailure(.operational, "\(dist): nginx cannot serve a folder whose path holds '\(character)'")
        }
        let worker = NginxWorkerUser.forThisProcess()
        if let worker, let problem = worker.cannotRead(dist) {
            throw CommandFailure(.operational, problem)
        }
        NginxFolder.removeLeftovers()
        (address, editorsAddress) = try freeAddresses()
        let folder: NginxFolder
        do {
            folder = try NginxFolder.make(worker: worker)
            var rules = NginxRules(
                dist: dist, publicListen: address.description, editorsListen: editorsAddress.description, auth: settings.auth,
                editorsAuth: settings.editorsAuth)
            rules.dashboardSocket = try startDashboard(in: folder, worker: worker)
            try folder.write(configuration: rules.standalone(folder: folder.path, user: worker.map { ($0.name, $0.group) }))
        } catch {
            throw CommandFailure(.operational, "cannot write nginx's configuration: \(error)")
        }
        self.folder = folder
        // The maps nginx is about to load: the first build reloads it only if it changes one.
        for site in (try? FileManager.default.contentsOfDirectory(atPath: dist)) ?? [] { ttlMaps[site] = ttlMapIdentity(site) }
        let nginx = NginxProcess(executable: executable, configuration: folder.configuration, pidFile: folder.pidFile) {
            Console.shared.error("quire: \($0)")
        }
        do {
            try nginx.start()
        } catch {
            stop()
            throw CommandFailure(.operational, "cannot serve on \(address) and \(editorsAddress): \(error)")
        }
        self.nginx = nginx
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "quire.serve.current", qos: .utility))
        timer.schedule(deadline: .now() + Self.currentCheckInterval, repeating: Self.currentCheckInterval, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.reloadForMovedCurrents() }
        timer.resume()
        currentCheck = timer
        links = EditorLinks(dist: dist, editors: editorsAddress.url, previews: previews)
        let gate = settings.auth.map { "audience variants checked by \($0.server)" } ?? "audience variants refused"
        let editorsGate = settings.editorsAuth.map { "signed in through \($0.service.server)" } ?? "no sign-in"
        Console.shared.error(
            "quire: nginx serves \(shownDist): apps on \(address) (\(address.url)/; \(gate)), "
                + "editors on \(editorsAddress) (\(editorsAddress.url)/; \(editorsGate))")
        if dashboard != nil { Console.shared.error("quire: the dashboard: \(editorsAddress.url)/dashboard/") }
    }

    /// Starts the dashboard's service on `<folder>/dashboard/scgi.sock`, a socket only the user
    /// nginx's workers run as can open; returns its path (nil without a dashboard).
    private func startDashboard(in folder: NginxFolder, worker: NginxWorkerUser?) throws(CommandFailure) -> String? {
        guard let dashboard else { return nil }
        let socket = "\(folder.path)/dashboard/scgi.sock"
        if let character = NginxRules.unservablePathCharacter(socket) {
            throw CommandFailure(.operational, "\(socket): nginx cannot be given a socket whose path holds '\(character)'")
        }
        do {
            try dashboard.start(SocketPlacement(path: socket, owner: worker?.ids))
        } catch {
            throw CommandFailure(.operational, "cannot start the dashboard's service: \(error)")
        }
        return socket
    }

    /// The addresses asked for, or with `nextFree` the first free pair of ports after them (an
    /// editors' address given with `--editors-listen` is never moved).
    private func freeAddresses() throws(CommandFailure) -> (ListenAddress, ListenAddress) {
        var candidate = settings.address
        let advice =
            "choose another with --serve [HOST:]PORT\(settings.editorsAddress == nil ? "; the editors' listener takes PORT+1" : "")"
        for _ in 0..<(settings.nextFree ? 50 : 1) where candidate.port < 65534 {
            let editors = settings.editors(for: candidate)
            let problem = candidate.unavailability().map { "\(candidate): \($0)" } ?? editors.unavailability().map { "\(editors): \($0)" }
            guard let problem else {
                if candidate != settings.address {
                    Console.shared.error(
                        "quire: \(settings.address) or \(settings.editors(for: settings.address)) is taken: serving on \(candidate) instead"
                    )
                }
                return (candidate, editors)
            }
            if !settings.nextFree || !problem.hasSuffix("the port is taken")
                || settings.editorsAddress.map({ problem.hasPrefix("\($0):") }) == true
            {
                throw CommandFailure(.operational, "cannot serve: \(problem) (\(advice))")
            }
            candidate = ListenAddress(host: candidate.host, port: candidate.port + 2)
        }
        throw CommandFailure(.operational, "cannot serve: no two free ports from \(settings.address.port) on \(settings.address.host)")
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
        dashboard?.stop()
        folder?.remove()
    }
}
