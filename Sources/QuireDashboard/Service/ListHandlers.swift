import Foundation
import QuireCore
import QuireModel

// `GET /api/sites` and `GET /api/sites/{site}/pages`: from the last scan, the watcher's build
// results (`PageStates`) and the sources' summaries, never a build.
extension DashboardService {
    func siteList() -> HTTPResponse {
        let sites = sites().map { site -> JSONValue in
            let draft = draftSite(site)
            let counts = pageStates.counts(site: site).values
            return .object(
                JSONObject([
                    ("name", .string(site)), ("current", pageStates.currentVersion(site: site).map(JSONValue.string) ?? .null),
                    ("pages", .integer(draft.pageSources.count)), ("errors", .integer(counts.reduce(0) { $0 + $1.errors })),
                    ("warnings", .integer(counts.reduce(0) { $0 + $1.warnings })),
                    ("locales", .array((draft.config?.locales ?? []).map { .string($0) })),
                ]))
        }
        return .json(.array(sites))
    }

    func pageList(_ site: String) throws(DashboardError) -> HTTPResponse {
        let folder = try folder(site)
        let draft = draftSite(site)
        let sources = draft.pageSources.sorted { $0.key < $1.key }
        let summaries = summaries.summaries(sources.map { folder.root + "/" + $0.value })
        let counts = pageStates.counts(site: site)
        let versions = pageStates.versions(site: site)
        let locales = draft.config.map { config in config.locales.filter { $0 != config.defaultLocale } } ?? []
        let now = Date()
        var pages: [JSONValue] = []
        pages.reserveCapacity(sources.count)
        for ((id, relativePath), summary) in zip(sources, summaries) {
            let count = counts[id] ?? PageStates.Counts()
            let state: String
            if count.errors > 0 || !summary.parses {
                state = "failing"
            } else if summary.draft {
                state = "draft"
            } else if let publishAt = summary.publishAt, publishAt > now {
                state = "scheduled"
            } else if let expiresAt = summary.expiresAt, expiresAt <= now {
                state = "expired"
            } else {
                state = "live"
            }
            let translated = draft.translatedLocales(of: id)
            pages.append(
                .object(
                    JSONObject([
                        ("id", .string(id)), ("title", summary.title.map(JSONValue.string) ?? .null), ("state", .string(state)),
                        ("version", versions[id].map(JSONValue.string) ?? .null), ("errors", .integer(count.errors)),
                        ("warnings", .integer(count.warnings)),
                        ("coverage", .object(JSONObject(locales.map { ($0, .number(translated.contains($0) ? 1 : 0)) }))),
                        ("path", .string(relativePath)), ("format", .string(relativePath.hasSuffix(".json") ? "json" : "yaml")),
                    ])))
        }
        return .json(.array(pages))
    }
}
