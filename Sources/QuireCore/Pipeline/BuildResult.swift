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
    public var seconds: Double = 0
    public var stageMilliseconds: [(stage: String, ms: Double)] = []
    public var coverage: [LocaleCoverage] = []
    /// An operational failure (exit 3), as opposed to content errors (exit 1).
    public var operationalError: String?

    public init(site: String) { self.site = site }

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

    public var json: JSONValue {
        ["locale": .string(locale), "translated": .integer(translated), "stale": .integer(stale),
         "missing": .integer(missing), "total": .integer(total), "percent": .number(percent)]
    }
}
