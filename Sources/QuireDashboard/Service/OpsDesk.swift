import Foundation
import QuireCore
import QuireModel

/// The ops view of one site (issue 51): its versions, diffs, history, and the actions of
/// `quire rollback`, `unpin`, `verify` and `gc`, each through the same `SiteStore` call the
/// command makes (and the same replica push after a rollback or unpin), recorded in
/// `state/history.jsonl` with the dashboard's user.
struct OpsDesk {
    let store: SiteStore
    let site: String
    let pagesRoot: String
    let dist: String

    init(service: DashboardService, site: String) throws(DashboardError) {
        _ = try service.folder(site)
        guard let dist = service.dist else { throw .notFound("this dashboard has no published versions to show (no dist)") }
        guard FileManager.default.fileExists(atPath: dist + "/" + site + "/versions") else {
            throw .notFound("\(site) has no published versions yet")
        }
        do throws(StoreError) {
            store = try SiteStore(dist: dist, site: site)
        } catch {
            throw DashboardError(.unprocessable, "cannot open \(site)'s versions: \(error.description)")
        }
        // A dashboard request waits a little for a publish in progress, not the command's 30 s.
        store.operationLockTimeout = 10
        self.site = site
        self.pagesRoot = service.absolutePagesRoot
        self.dist = dist
    }

    func versions() throws(DashboardError) -> HTTPResponse {
        try storeCall { () throws(StoreError) -> HTTPResponse in
            let users = try store.operations.publishers()
            let pin = try store.operations.pin()
            let versions = try store.operations.versions().map { info -> JSONValue in
                var object = info.json.objectValue ?? JSONObject()
                object["user"] = users[info.id].map(JSONValue.string) ?? .null
                return .object(object)
            }
            return .json(
                .object(
                    JSONObject([
                        ("site", .string(site)), ("current", try store.reader.currentVersion().map { .string($0.description) } ?? .null),
                        (
                            "pin",
                            pin.map {
                                .object(
                                    JSONObject([
                                        ("version", .string($0.version.description)), ("reason", .string($0.reason)),
                                        ("pinned_at", .string($0.pinnedAt)),
                                    ]))
                            } ?? .null
                        ),
                        ("versions", .array(versions)), ("replicas", .array(store.operations.replicaStates())),
                    ])))
        }
    }

    /// `?from=v1&to=v2`: the published paths added, changed and removed.
    func diff(_ query: [String: String]) throws(DashboardError) -> HTTPResponse {
        let old = try version(query["from"], "from")
        let new = try version(query["to"], "to")
        return try storeCall { () throws(StoreError) -> HTTPResponse in
            var object = try store.operations.diff(from: old, to: new).json.objectValue ?? JSONObject()
            object["from"] = .string(old.description)
            object["to"] = .string(new.description)
            return .json(.object(object))
        }
    }

    /// `?version=v&path=en/home.json`: one published file of a version, as indented JSON text
    /// (null when the version has no such file), for the side-by-side view of a diff.
    func published(_ query: [String: String]) throws(DashboardError) -> HTTPResponse {
        let target = try version(query["version"], "version")
        guard let path = query["path"], !path.isEmpty, path.count < 1024 else {
            throw .badRequest("name the published file: ?path=en/home.json")
        }
        return try storeCall { () throws(StoreError) -> HTTPResponse in
            let bytes = try store.operations.publishedFile(path, of: target)
            let text = bytes.map { bytes -> String in
                guard let value = try? SourceParser.parse(bytes, format: .json, file: path).json else {
                    return String(decoding: bytes, as: UTF8.self)
                }
                return JSONWriter(pretty: true).string(value)
            }
            return .json(
                .object(
                    JSONObject([
                        ("version", .string(target.description)), ("path", .string(path)), ("text", text.map(JSONValue.string) ?? .null),
                    ])))
        }
    }

    /// `?kind=rollback&user=ann`: the history, newest first, filtered; with every kind and user
    /// it holds, for the filters.
    func history(_ query: [String: String]) throws(DashboardError) -> HTTPResponse {
        try storeCall { () throws(StoreError) -> HTTPResponse in
            let entries = try store.operations.history()
            let kind = query["kind"].flatMap { $0.isEmpty ? nil : $0 }
            let user = query["user"].flatMap { $0.isEmpty ? nil : $0 }
            let shown = entries.reversed().filter { entry in
                (kind == nil || entry.action.rawValue == kind) && (user == nil || entry.user == user)
            }
            return .json(
                .object(
                    JSONObject([
                        ("entries", .array(shown.prefix(1000).map(\.json))),
                        ("kinds", .array(Set(entries.map(\.action.rawValue)).sorted().map { .string($0) })),
                        ("users", .array(Set(entries.map(\.user)).sorted().map { .string($0) })),
                    ])))
        }
    }

    /// `rollback {version, reason}`, `unpin {reason}`, `verify {version}`, `gc {keep, reason}`.
    func act(_ action: String, body: JSONObject, user: String?) throws(DashboardError) -> HTTPResponse {
        let reason = (body["reason"]?.stringValue ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        switch action {
        case "rollback":
            guard !reason.isEmpty else { throw .badRequest("a rollback needs a reason: say why, for the history") }
            let target = try version(body["version"]?.stringValue, "version")
            return try storeCall { () throws(StoreError) -> HTTPResponse in
                let from = try store.reader.currentVersion()
                let to = try store.operations.rollback(to: target, reason: reason, user: user)
                return result([
                    ("current", .string(to.description)), ("was", from.map { .string($0.description) } ?? .null),
                    ("pinned", .bool(true)), ("replicas", pushReplicas()),
                ])
            }
        case "unpin":
            return try storeCall { () throws(StoreError) -> HTTPResponse in
                let current = try store.operations.unpin(reason: reason, user: user)
                return result([("current", current.map { .string($0.description) } ?? .null), ("replicas", pushReplicas())])
            }
        case "verify":
            let target = try body["version"]?.stringValue.map { (text: String) throws(DashboardError) in try version(text, "version") }
            return try storeCall { () throws(StoreError) -> HTTPResponse in
                let problems = try store.operations.verify(version: target)
                let current = try store.reader.currentVersion()
                let name = target ?? current
                return result([
                    ("version", name.map { .string($0.description) } ?? .null), ("verified", .bool(problems.isEmpty)),
                    ("problems", .array(problems.map { .string($0.description) })),
                ])
            }
        case "gc":
            guard let keep = body["keep"]?.intValue, keep >= 1 else {
                throw .badRequest("gc needs 'keep': how many of the newest versions to keep (at least 1)")
            }
            return try storeCall { () throws(StoreError) -> HTTPResponse in
                let report = try store.operations.gc(keep: keep, reason: reason, user: user)
                return result([
                    ("removed_versions", .array(report.removedVersions.map { .string($0.description) })),
                    ("removed_trees", .integer(report.removedTrees)), ("count", .integer(report.removedVersions.count)),
                    // The replicas drop what the origin dropped, as after `quire gc`.
                    ("replicas", pushReplicas()),
                ])
            }
        default:
            throw .notFound("no ops action '\(action)'")
        }
    }

    /// After a rollback, unpin or gc, what the command does next: push to site.yaml's replicas.
    private func pushReplicas() -> JSONValue {
        let destinations = ReplicaPush.configured(site: site, pages: pagesRoot)
        guard !destinations.isEmpty else { return .array([]) }
        do throws(StoreError) {
            let report = try ReplicaPush(dist: dist, site: site).run(to: destinations, lockTimeout: 60)
            return .array(
                report.destinations.map { destination, state in
                    let (name, message): (String, String?) =
                        switch state {
                        case .current: ("current", nil)
                        case .unreachable(let why): ("unreachable", why)
                        case .failed(let why): ("failed", why)
                        }
                    return .object(
                        JSONObject([
                            ("destination", .string(destination.description)), ("state", .string(name)),
                            ("message", message.map(JSONValue.string) ?? .null),
                        ]))
                })
        } catch {
            return .array([.object(JSONObject([("state", .string("failed")), ("message", .string(error.description))]))])
        }
    }

    private func result(_ members: [(String, JSONValue)]) -> HTTPResponse {
        .json(.object(JSONObject([("site", .string(site))] + members)))
    }

    private func version(_ text: String?, _ name: String) throws(DashboardError) -> VersionID {
        guard let text, !text.isEmpty else { throw .badRequest("name the version: '\(name)' like v000012") }
        if let id = VersionID(text) { return id }
        if let number = Int(text.hasPrefix("v") ? String(text.dropFirst()) : text), number > 0, number < 10_000_000 {
            return VersionID(number)
        }
        throw .badRequest("'\(text.prefix(40))' is not a version: write it like v000012")
    }

    /// The store's refusals (no such version, the lock held too long) are conflicts with its message.
    private func storeCall(_ body: () throws(StoreError) -> HTTPResponse) throws(DashboardError) -> HTTPResponse {
        do throws(StoreError) {
            return try body()
        } catch {
            throw DashboardError(.conflict, error.description)
        }
    }
}
