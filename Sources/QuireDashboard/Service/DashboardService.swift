import Foundation
public import QuireCore
import QuireModel

/// The dashboard's editing service: the API of the dashboard (docs: ARCHITECTURE.md, "The
/// dashboard"), served over SCGI behind nginx's editors' listener. It reads and writes files
/// under `pages/<site>/` only, and asks the pipeline to check and render drafts in memory;
/// publishing stays the watcher's, which tells the service each build (`built`), so it can tell
/// the dashboards a save is live.
public final class DashboardService: @unchecked Sendable {
    /// As the command line gave it, for diagnostics (`pages/trex/store.yaml`).
    let pagesRoot: String
    /// Absolute, as the watcher names changed files.
    let absolutePagesRoot: String
    /// The sites the watcher publishes (folder names, checked).
    let sites: @Sendable () -> [String]
    /// Per process: a state-changing request must carry it (`X-Quire-Token`).
    let token: String
    let events = EventHub()
    let saves = SaveLedger()
    let pageStates = PageStates()
    let summaries = SourceSummaries()
    private let lock = NSLock()
    /// Held while a site's kept scan is read, brought up to date and stored again: two updates
    /// side by side (a build's and a save's) would otherwise each drop the other's change.
    private let draftSiteUpdates = NSLock()
    /// Per site, its scan and settings, until a build says they changed (`built`).
    private var draftSites: [String: DraftSite] = [:]
    /// Per site, the pages and translation files the translators' requests read (`L10nDesk`).
    private var translationCaches: [String: SiteTranslationsCache] = [:]
    private var server: SCGIServer?

    /// The largest asset an upload may bring.
    public var maxAssetBytes = 8 * 1024 * 1024
    /// `dist/`, where the ops routes find each site's versions; nil: no ops routes.
    public var dist: String?
    /// Behind `--editors-auth`: each request's user and groups decide its roles (`Access`);
    /// false: the local user on loopback, who may do everything.
    public var signInRequired = false

    public init(pagesRoot: String, sites: @escaping @Sendable () -> [String]) {
        self.pagesRoot = pagesRoot
        absolutePagesRoot = URL(fileURLWithPath: pagesRoot).standardizedFileURL.path
        self.sites = sites
        var generator = SystemRandomNumberGenerator()
        token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Starts serving SCGI on `placement`'s socket.
    public func start(_ placement: SocketPlacement) throws(SCGIServerError) {
        let server = try SCGIServer(placement) { [self] request in handle(request) }
        server.start()
        lock.withLock { self.server = server }
    }

    /// Stops serving: the socket goes, event streams end.
    public func stop() {
        lock.withLock { server }?.stop()
        events.closeAll()
    }

    /// One request, routed (`DashboardRoutes`); every refusal is a `DashboardError`'s answer.
    public func handle(_ request: SCGIRequest) -> HTTPResponse {
        do throws(DashboardError) {
            return try route(request)
        } catch {
            return error.response
        }
    }

    /// The site's scan and settings as a draft check needs them, read once per build of the site.
    func draftSite(_ site: String) -> DraftSite {
        if let cached = lock.withLock({ draftSites[site] }) { return cached }
        return draftSiteUpdates.withLock {
            if let cached = lock.withLock({ draftSites[site] }) { return cached }
            let loaded = DraftSite(pagesRoot: pagesRoot, site: site)
            lock.withLock { draftSites[site] = loaded }
            return loaded
        }
    }

    /// What the translators' requests keep of `site`'s files between loads.
    func translationCache(_ site: String) -> SiteTranslationsCache {
        lock.withLock {
            if let cache = translationCaches[site] { return cache }
            let cache = SiteTranslationsCache()
            translationCaches[site] = cache
            return cache
        }
    }

    /// Brings what is kept of `site`'s scan up to date with `changed` (absolute paths; nil: all).
    func updateDraftSite(_ site: String, changed: Set<String>?) {
        draftSiteUpdates.withLock {
            guard let cached = lock.withLock({ draftSites[site] }) else { return }
            let updated = changed.map { cached.updated(changed: $0) } ?? DraftSite(pagesRoot: pagesRoot, site: site)
            lock.withLock { draftSites[site] = updated }
        }
    }

    /// After the service itself added or removed `relativePath` of `site`.
    func updateDraftSite(_ site: String, wrote relativePath: String) {
        updateDraftSite(site, changed: [absolutePagesRoot + "/" + site + "/" + relativePath])
    }

    func folder(_ site: String) throws(DashboardError) -> SiteFolder {
        var folder = try SiteFolder(pagesRoot: absolutePagesRoot, site: site, sites: sites())
        folder.dataFiles = Set([draftSite(site).drillCatalogPageID].compactMap { $0 })
        return folder
    }

    /// Sites whose build in progress was told to the event streams when it went live (`published`).
    private var announced = Set<String>()
    /// Sites with a burst held since their last publish (its saves go out with that publish).
    private var held = Set<String>()
    /// Sites whose page list was read ahead (`warmPageList`).
    private var warmed = Set<String>()

    /// After a site's first build, reads its pages' titles and schedules in the background, so
    /// the first page list of a large site does not parse every source while an editor waits.
    private func warmPageList(_ site: String) {
        guard lock.withLock({ warmed.insert(site).inserted }), let folder = try? folder(site) else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            _ = summaries.summaries(draftSite(site).pageSources.values.map { folder.root + "/" + $0 })
        }
    }

    /// Runs `write` (a save, a new page, a delete, an upload of `relativePath`) as a save of the
    /// ledger: recorded before the file changes, since the watcher may build it the moment it is
    /// renamed and asks the ledger who made it. Returns the save's id.
    func save(_ site: String, _ relativePath: String, _ request: SCGIRequest, _ write: () throws(DashboardError) -> Void)
        throws(DashboardError) -> String
    {
        let id = saves.record(site: site, path: absolutePagesRoot + "/" + site + "/" + relativePath, user: user(request))
        do {
            try write()
        } catch {
            saves.forget(id)
            throw error
        }
        saves.written(id)
        return id
    }

    // MARK: - What the watcher tells

    /// Who caused the changes the watcher is about to build (the newest dashboard save among
    /// `changed`, nil for the whole site), for the publish's history line; nil: no dashboard user.
    public func user(site: String, changed: Set<String>?) -> String? {
        saves.user(site: site, of: changed)
    }

    /// The moment a build's version is live (`BuildOptions.published`): the saves it carried, and
    /// how long after each it went live, pushed to every event stream at once.
    public func published(_ result: SiteBuildResult, changed: Set<String>?) {
        lock.withLock { _ = announced.insert(result.site) }
        publishEvent(result, changed: changed)
    }

    /// After each build of a site: what the page list shows of it, and (unless `published` told
    /// it already) the event: unchanged, failed or held builds, and publishes not announced.
    public func built(_ result: SiteBuildResult, changed: Set<String>?) {
        let site = result.site
        if let cached = lock.withLock({ draftSites[site] }) {
            // Page sources the scan knows only changed their bytes: the scan stands.
            let known = Set(cached.pageSources.values.map { absolutePagesRoot + "/" + site + "/" + $0 })
            if changed.map({ !$0.isSubset(of: known) }) ?? true { updateDraftSite(site, changed: changed) }
        }
        pageStates.record(result)
        warmPageList(site)
        guard !result.isHeld else {
            lock.withLock { _ = held.insert(site) }
            events.publish("publish", data: JSONWriter(pretty: false).string(PublishEvent.held(site)))
            return
        }
        if lock.withLock({ announced.remove(site) }) != nil { return }
        publishEvent(result, changed: changed)
    }

    private func publishEvent(_ result: SiteBuildResult, changed: Set<String>?) {
        // After a held burst, the build that publishes it carries the held change sets too.
        let afterHeld = lock.withLock { held.remove(result.site) != nil }
        let covered = saves.covered(site: result.site, paths: afterHeld ? nil : changed, started: result.startedAt)
        let event = PublishEvent.make(result, saves: covered, changed: changed, pagesRoot: absolutePagesRoot)
        events.publish("publish", data: JSONWriter(pretty: false).string(event))
    }
}
