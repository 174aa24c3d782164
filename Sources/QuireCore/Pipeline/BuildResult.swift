public import Foundation
public import QuireModel

/// What one build of one site did: what the CLI prints and `status.json` records.
public struct SiteBuildResult: Sendable {
    public var site: String
    public var diagnostics: [Diagnostic] = []
    /// Nil when nothing was published (check, or the site could not be built at all).
    public var outcome: PublishOutcome?
    public var pagesTotal = 0
    /// Page-locale files rendered anew (not carried from the newest version).
    public var filesRendered = 0
    public var pagesRebuilt: [String] = []
    /// Pages the published version serves that the one before did not, and the reverse.
    public var pagesAdded: [String] = []
    public var pagesRemoved: [String] = []
    /// Built and published as a delta against the last version (the watcher's fast path).
    public var builtAsDelta = false
    /// Rendered but not published: its burst was still being written, and the next build
    /// publishes it with the rest (`SiteBuilder.build(changed:hold:)`).
    public var isHeld = false
    public var seconds: Double = 0
    public var stageMilliseconds: [(stage: String, ms: Double)] = []
    public var coverage: [LocaleCoverage] = []
    /// Each page source as diagnostics name it -> its page id (the status page files a page's
    /// diagnostics under it).
    public var pageSources: [String: String] = [:]
    /// An operational failure (exit 3), as opposed to content errors (exit 1).
    public var operationalError: String?
    /// The site's `replicas:` as this build read them from site.yaml; nil when it could not read
    /// its settings. The push after a publish takes them from here rather than scanning the site
    /// again (30,000 files at 10,000 pages).
    public var replicas: [ReplicaDestination]?
    /// Pages and sections whose `publish_at` or `expires_at` is still ahead, soonest first.
    public var scheduled: [ScheduledChange] = []
    /// Each feed's name, length and newest entry in the default locale (`FeedFiles.summary`).
    public var feeds: [JSONValue] = []
    /// When the next of them takes effect: `quire watch` rebuilds the site then.
    public var nextScheduledChange: Date? { scheduled.first?.at }
    /// When the build began (`DispatchTime` uptime nanoseconds), before it read any source: a
    /// file written after it may or may not be in this build, and is in the next one.
    public var startedAt: UInt64

    public init(site: String, startedAt: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        self.site = site
        self.startedAt = startedAt
    }

    public var hasErrors: Bool { diagnostics.hasErrors }
}

/// Translation coverage of one locale of a site.
public struct LocaleCoverage: Sendable, Hashable {
    public var locale: String
    public var translated = 0
    public var stale = 0
    public var missing = 0

    public var total: Int { translated + stale + missing }
    public var percent: Double { total == 0 ? 100 : (Double(translated) * 1000 / Double(total)).rounded() / 10 }

    /// Counts `other`'s strings in too (`sign` -1: takes them out).
    public mutating func add(_ other: LocaleCoverage, sign: Int = 1) {
        translated += sign * other.translated
        stale += sign * other.stale
        missing += sign * other.missing
    }

    public var json: JSONValue {
        [
            "locale": .string(locale), "translated": .integer(translated), "stale": .integer(stale),
            "missing": .integer(missing), "total": .integer(total), "percent": .number(percent),
        ]
    }
}

/// A `publish_at` or `expires_at` still ahead: listed in `status.json` under `scheduled`.
public struct ScheduledChange: Sendable, Hashable {
    public enum Action: String, Sendable, Hashable {
        case publish
        case expire
    }

    public var pageID: String
    /// Nil when the page itself is scheduled.
    public var section: String?
    public var at: Date
    public var action: Action

    public var json: JSONValue {
        var object = JSONObject()
        object["page_id"] = .string(pageID)
        if let section { object["section"] = .string(section) }
        object["at"] = .string(ISO8601DateFormatter().string(from: at))
        object["action"] = .string(action.rawValue)
        return .object(object)
    }
}
