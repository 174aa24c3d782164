import Foundation
import QuireCommandLine
import QuireCore
import QuireDashboard
import QuireWatch
import Synchronization

/// `quire watch`: listens for changes, publishes every site once, then again on every settled change. One
/// `SiteBuilder` per site keeps parsed sources between builds; builds run one at a time on one
/// serial queue, so a site never has two publishes in flight, and SIGINT/SIGTERM wait for the
/// running build to finish before exiting (no staging is left behind).
final class WatchCommand: @unchecked Sendable {
    static let spec = CommandSpec(
        "watch", abstract: "Publish every site, then publish again on every change (inotify).",
        options: [
            .pages, .dist, .everySite,
            OptionSpec(
                .poll, "SECONDS", unit: "seconds", absent: .meaning("inotify, no polling"),
                help: "look for changes this often instead of listening (file systems without inotify)"),
            OptionSpec(
                .quietWindow, "SECONDS", unit: "seconds", default: "\(WatchOptions().quietWindow)",
                help: "publish once files have been still this long"),
            .noPreview, .timings, .lockTimeout(30),
            OptionSpec(
                .serve, "[HOST:]PORT", absent: .meaning("not served"),
                help:
                    "serve dist/ with nginx: apps on PORT (HOST: 127.0.0.1 if omitted), editors (the dashboard, status pages, previews) on 127.0.0.1:PORT+1"
            ),
            .flag(.serveNextFree, help: "with --serve: take the next free pair of ports when these are taken"),
            OptionSpec(
                .serveAuth, "URL", absent: .meaning("audience variants refused"),
                help: "with --serve: the app's auth service, asked before an audience variant is served"),
            OptionSpec(
                .editorsListen, "[HOST:]PORT", absent: .meaning("127.0.0.1, the port after --serve's"),
                help: "with --serve: where the editors' listener listens; an address other machines reach needs --editors-auth"),
            OptionSpec(
                .editorsAuth, "URL", absent: .meaning("no sign-in (loopback only)"),
                help: "with --serve: the editors' sign-in service (as oauth2-proxy), asked about every request on the editors' listener"),
            OptionSpec(
                .editorsUserHeader, "NAME", default: "X-Auth-Request-User",
                help: "with --editors-auth: the header of the sign-in service's answer that names the user"),
            OptionSpec(
                .editorsGroupsHeader, "NAME", default: "X-Auth-Request-Groups",
                help: "with --editors-auth: the header of the sign-in service's answer that names the user's groups"),
        ],
        example: "quire watch --pages pages --dist dist --serve 127.0.0.1:8080")

    let arguments: Arguments
    private let buildQueue = DispatchQueue(label: "quire.watch.build")
    private var builders: [String: SiteBuilder] = [:]
    /// Per site, the rebuild at its next `publish_at` / `expires_at` (touched on `buildQueue` only).
    private var scheduleTimers: [String: any DispatchSourceTimer] = [:]
    /// Per site, the wait before the next try after a publish failed (touched on `buildQueue` only).
    private var retryDelays: [String: Double] = [:]
    private static let longestRetryDelay: Double = 30
    /// Per site, the pushes to its `replicas:` (touched on `buildQueue` only).
    private var pushes: [String: BackgroundPush] = [:]
    /// Folders under pages/ already reported as not sites (touched on `buildQueue` only).
    private var refusedFolders = Set<String>()
    /// nginx serving dist/ (`--serve`), started before the first build.
    private var serving: WatchServing?
    /// The dashboard's editing service (`--serve`): told who caused each change set and each build.
    private var dashboard: DashboardService?
    /// Set once the first build is published and "watching" said: a stop signal from then on is
    /// always a clean stop.
    private let isReady = Atomic<Bool>(false)

    init(arguments: Arguments) { self.arguments = arguments }

    func run() throws -> ExitCode {
        Allocator.returnFreedMemoryAtOnce()
        let pages = arguments.pages
        var options = WatchOptions()
        if let window = try arguments.seconds(.quietWindow) { options.quietWindow = window }
        options.pollInterval = try arguments.seconds(.poll)
        _ = try arguments.seconds(.lockTimeout)  // a bad value is a usage error now, not at the first build
        let folders = try Sites.folders(pages: pages, only: arguments.site)
        let sites = folders.names
        refusedFolders = Set(folders.refusedNames)
        // SIGINT and SIGTERM are handled from the start: one during the first build stops the
        // watcher once that build is published (exit 0, the restart file left), never midway, and
        // with `--serve` never while its nginx is not yet tied to it.
        let stopped = DispatchSemaphore(value: 0)
        stopOnSignals(stopped)
        if let settings = try WatchServing.Settings(arguments) {
            let (pagesFolder, only) = (arguments.pages, arguments.site)
            let dashboard = DashboardService(
                pagesRoot: pages,
                sites: {
                    // Refused folders are reported once, by the watcher's own scan.
                    (try? Sites.folders(pages: pagesFolder, only: only, reportRefused: false).names) ?? []
                })
            dashboard.dist = arguments.dist
            dashboard.signInRequired = settings.editorsAuth != nil
            self.dashboard = dashboard
            let serving = WatchServing(settings, dist: arguments.dist, previews: !arguments.flag(.noPreview), dashboard: dashboard)
            try serving.start()
            self.serving = serving
        }
        defer { serving?.stop() }

        // Listening starts before the first build: a save made while it runs is a change set
        // that waits for the build queue, never a file read once and then trusted from the cache.
        let absolutePages = URL(fileURLWithPath: pages).standardizedFileURL.path
        // Settled change sets arrive on the build queue itself: one hop from settling to building.
        let watcher = try PageWatcher(
            root: pages, options: options, log: { Console.shared.error("quire: watch: \($0)") },
            deliveryQueue: buildQueue
        ) { [self] change in
            dispatchPrecondition(condition: .onQueue(buildQueue))
            handle(change, pagesRoot: absolutePages)
        }
        try watcher.start()
        // A change set that came first has built its site already.
        let started = buildQueue.sync {
            for site in sites where builders[site] == nil { build(site) }
            return Array(builders.values)
        }
        // "watching" means ready: the first save finds the spare folders of what the first build
        // published, rather than linking a folder of every page itself, and has both cores, not
        // one shared with what the first build frees and notes. A save made meanwhile starts its
        // build, which stops the making of spares, and the wait with it. The reserve copies made
        // after the spares (a store with fewer versions than `keep:`) go on: a save stops them.
        for builder in started { builder.waitUntilSavesAreReady() }
        // What the first build and its background work let go of goes back to the system before
        // the watcher settles to hold its tables: mimalloc keeps the freed pages of the build
        // queue's heap and of finished threads' heaps until asked (at 100,000 pages, 250 MiB of
        // resident memory for 0.2 s of work). Dispatch's workers too: each would otherwise first
        // collect what others freed of its blocks during the first save's publish.
        buildQueue.sync { Allocator.collect() }
        Allocator.collectOnDispatchWorkers()
        Console.shared.error(
            "quire: watching \(pages)/ (\(options.pollInterval.map { "polling every \($0) s" } ?? "inotify")); Ctrl-C stops")

        isReady.store(true, ordering: .releasing)
        stopped.wait()
        Console.shared.error("quire: stopping: finishing the current build")
        watcher.stop()
        buildQueue.sync {
            for timer in scheduleTimers.values { timer.cancel() }
            publishHeld()
            for push in pushes.values { push.finish() }
            for builder in builders.values {
                builder.flushStatus()
                builder.closeSpareFolders(handingOver: true)
                builder.saveRestartCache()
            }
        }
        return .ok
    }

    /// SIGINT and SIGTERM signal `stopped` instead of ending the process. Before the watcher is
    /// `ready` the first one says it waits for the first build, and a second one ends it at once
    /// (a publish is atomic: nothing is left half-written).
    private func stopOnSignals(_ stopped: DispatchSemaphore) {
        // Signals reach this closure one at a time, on the stop-signal thread.
        nonisolated(unsafe) var signalled = false
        StopSignals.install { [self] in
            if !isReady.load(ordering: .acquiring) {
                // 128 + SIGINT, as a shell reports a process ended by Ctrl-C.
                if signalled { _exit(130) }
                Console.shared.error("quire: stopping once the first build is published (again to stop now)")
            }
            signalled = true
            stopped.signal()
        }
    }

    /// Which sites a change touches: the first path component under the pages folder.
    private func handle(_ change: ChangeSet, pagesRoot: String) {
        let sites = change.bySite(
            pagesRoot: pagesRoot,
            allSites: (try? Sites.folders(pages: arguments.pages, only: arguments.site, reportRefused: false).names) ?? [],
            isSite: { name in
                guard Identifier.isValid(name) else {
                    reportRefusedFolder(name)
                    return false
                }
                return arguments.site == nil || arguments.site == name
            })
        for (site, paths) in sites.sorted(by: { $0.key < $1.key }) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(arguments.pages)/\(site)", isDirectory: &isDirectory), isDirectory.boolValue {
                build(site, changed: paths, hold: change.moreComing)
            } else if builders.removeValue(forKey: site) != nil {
                scheduleTimers.removeValue(forKey: site)?.cancel()
                Console.shared.error("quire: \(site): its folder is gone; its published versions stay in \(arguments.dist)/\(site)")
            }
        }
        // The burst is over: what the sites it left alone still hold is published now.
        if !change.moreComing { publishHeld(except: Set(sites.keys)) }
    }

    /// A folder made while watching whose name breaks the id rule: said once, never built.
    private func reportRefusedFolder(_ name: String) {
        guard arguments.site == nil, !EditorTempFiles.isIgnored(name), refusedFolders.insert(name).inserted else { return }
        var isDirectory: ObjCBool = false
        let path = "\(arguments.pages)/\(name)"
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return }
        Console.shared.diagnostic(.error("\(arguments.pages)/\(SiteFolders.printable(name))", SiteFolders.problem(name)))
    }

    /// Publishes what builders hold from a burst (see `SiteBuilder.build(changed:hold:)`).
    private func publishHeld(except done: Set<String> = []) {
        for (site, builder) in builders.sorted(by: { $0.key < $1.key }) where builder.isHolding && !done.contains(site) {
            build(site, changed: [])
        }
    }

    private func build(_ site: String, changed: Set<String>? = nil, hold: Bool = false) {
        let builder =
            builders[site]
            ?? {
                var options = BuildOptions()
                options.previews = !arguments.flag(.noPreview)
                options.faults = testFaults
                options.lockTimeout = (try? arguments.seconds(.lockTimeout)) ?? options.lockTimeout
                options.statusInBackground = true
                options.spareFolders = true
                options.restartCache = true
                options.log = { Console.shared.error("quire: \($0)") }
                if arguments.flag(.timings) {
                    options.spareFoldersMade = { made, stopped, milliseconds in
                        let when = String(format: "%.1f ms after the publish", milliseconds)
                        Console.shared.error(
                            "quire: \(site): spare folders: \(made) made, \(stopped ? "stopped by the next build" : "all ready") \(when)")
                    }
                }
                let created = SiteBuilder(site: site, pagesRoot: arguments.pages, distRoot: arguments.dist, options: options)
                builders[site] = created
                return created
            }()
        if let dashboard {
            builder.options.published = { result in dashboard.published(result, changed: changed) }
        }
        let result = builder.build(changed: changed, hold: hold, user: dashboard?.user(site: site, changed: changed))
        _ = BuildCommand.report(result, format: .text, publishing: true)
        if arguments.flag(.timings) { BuildCommand.reportStages(result) }
        serving?.built(result)
        dashboard?.built(result, changed: changed)
        if result.outcome != nil, let replicas = result.replicas, !replicas.isEmpty { requestPush(site, to: replicas) }
        if result.operationalError != nil {
            // The change set is not dropped: the site is built again from what is on disk (the
            // builder forgot its caches), sooner than any next save need come.
            let delay = retryDelays[site].map { min($0 * 2, Self.longestRetryDelay) } ?? 1
            retryDelays[site] = delay
            Console.shared.error("quire: \(site): not published; trying again in \(Int(delay)) s")
            scheduleRebuild(site, at: Date().addingTimeInterval(delay), because: "trying again")
        } else if !result.isHeld {
            // A held build knows nothing of the site's schedule: the build that publishes it does.
            retryDelays[site] = nil
            let next = result.nextScheduledChange
            let stamp = next.map { ISO8601DateFormatter().string(from: $0) } ?? ""
            if next != nil { Console.shared.error("quire: \(site): next scheduled change at \(stamp)") }
            scheduleRebuild(site, at: next, because: "scheduled change at \(stamp)")
        }
    }

    /// Pushes to the site's `replicas:`, as the build read them from site.yaml, in the background.
    private func requestPush(_ site: String, to replicas: [ReplicaDestination]) {
        let push = pushes[site] ?? BackgroundPush(site: site)
        pushes[site] = push
        let dist = arguments.dist
        // The builder writes the status files again with the push's outcome, from the pages it
        // keeps, rather than the push parsing and rendering every page of `status.json`.
        var rewrite: (@Sendable () -> Void)?
        if let builder = builders[site] { rewrite = { builder.rewriteStatus() } }
        push.request { [rewrite] in Replicas.push(site: site, dist: dist, to: replicas, statusRewrite: rewrite) }
    }

    /// One timer per site, replaced after every build: a scheduled time, or a retry after a
    /// failed publish, builds the site again even when no file changes. Runs on `buildQueue`.
    private func scheduleRebuild(_ site: String, at date: Date?, because reason: String) {
        scheduleTimers.removeValue(forKey: site)?.cancel()
        guard let date else { return }
        // A little after the time, so the rebuild sees it reached (wall clock: survives sleep).
        let seconds = max(date.timeIntervalSinceNow, 0) + 0.25
        let timer = DispatchSource.makeTimerSource(queue: buildQueue)
        timer.schedule(wallDeadline: .now() + seconds)
        timer.setEventHandler { [self] in
            Console.shared.error("quire: \(site): \(reason): rebuilding")
            build(site)
        }
        timer.resume()
        scheduleTimers[site] = timer
    }
}

extension OptionName {
    static let poll = OptionName("poll")
    static let quietWindow = OptionName("quiet-window")
    static let serve = OptionName("serve")
    static let serveAuth = OptionName("serve-auth")
    static let editorsListen = OptionName("editors-listen")
    static let editorsAuth = OptionName("editors-auth")
    static let editorsUserHeader = OptionName("editors-user-header")
    static let editorsGroupsHeader = OptionName("editors-groups-header")
}

extension FlagName {
    static let serveNextFree = FlagName("serve-next-free")
}
