public import QuireModel

/// A site's `site.yaml`: locales, routes, audiences, caching and retention.
public struct SiteConfig: Sendable, Hashable {
    public enum StalePolicy: String, Sendable, Hashable {
        /// Use a translation whose source changed, with a warning.
        case warn
        /// Treat it as missing and fall back along the chain.
        case fallback
    }

    /// What a translation may do with the links of a markdown text (`translations: {links: ...}`).
    public enum LinkPolicy: String, Sendable, Hashable {
        /// Keep every link of the source text as it is.
        case same
        /// Keep as many links, each a safe URL, but point them elsewhere (the page in its language).
        case localized
    }

    public var name: String
    public var title: String?
    public var defaultLocale: String = "en"
    public var locales: [String] = ["en"]
    /// Explicit fallback chains, e.g. `fr-CA: [fr]`; the default locale always ends a chain.
    public var fallbacks: [String: [String]] = [:]
    /// In-app routes a `navigate` button may target besides the site's pages (`/drills`).
    public var appRoutes: Set<String> = []
    /// Declared audiences for `visible_to`: roles and subscription tiers.
    public var roles: [String] = []
    public var tiers: [String] = []
    public var ttl: Int = 300
    public var keep: Int?
    public var stalePolicy: StalePolicy = .warn
    public var linkPolicy: LinkPolicy = .same
    public var publishHook: String?
    /// Where `quire build`, `rollback`, `unpin` and `watch` push the site after it changes.
    public var replicas: [ReplicaDestination] = []
    public var drillCatalog: String?
    public var feeds: [FeedConfig] = []
    public var limits = SourceLimits()
    /// Who may do what on the dashboard (`dashboard:`), by the groups the editors' sign-in names;
    /// nil: every signed-in user may do everything.
    public var dashboardRoles: DashboardRoles?

    public init(name: String) { self.name = name }

    /// `[locale, its fallbacks..., default]` without repeats.
    public func chain(for locale: String) -> [String] {
        var chain = [locale]
        var next = fallbacks[locale] ?? Self.implicitParent(of: locale).map { [$0] } ?? []
        while let candidate = next.first {
            next.removeFirst()
            guard !chain.contains(candidate) else { continue }
            chain.append(candidate)
            if next.isEmpty { next = fallbacks[candidate] ?? [] }
        }
        if !chain.contains(defaultLocale) { chain.append(defaultLocale) }
        return chain.filter { $0 == locale || locales.contains($0) || $0 == defaultLocale }
    }

    /// `fr-CA` falls back to `fr` unless told otherwise.
    static func implicitParent(of locale: String) -> String? {
        guard let dash = locale.firstIndex(of: "-") else { return nil }
        return String(locale[..<dash])
    }

    public var audiences: [String] { roles + tiers }

    public var manifestFields: JSONObject {
        var fallbackObject = JSONObject()
        for locale in locales { fallbackObject[locale] = .array(chain(for: locale).dropFirst().map { .string($0) }) }
        return JSONObject([
            ("default_locale", .string(defaultLocale)),
            ("locales", .array(locales.map { .string($0) })),
            ("fallbacks", .object(fallbackObject)),
            ("directions", .object(JSONObject(locales.map { ($0, .string(TextDirection(locale: $0).rawValue)) }))),
            ("ttl", .integer(ttl)),
        ])
    }
}

extension SiteConfig {
    static let knownKeys: Set<String> = [
        "title", "default_locale", "locales", "fallbacks", "app_routes", "audiences", "ttl", "keep", "feeds",
        "stale_translations", "translations", "publish_hook", "drill_catalog", "limits", "vocabulary", "replicas", "dashboard",
    ]

    /// Reads a parsed `site.yaml`; problems go to `diagnostics`, the config keeps safe defaults.
    static func read(_ root: SourceNode, site: String, file: String) -> (SiteConfig, [Diagnostic]) {
        var config = SiteConfig(name: site)
        var reader = SourceNodeReader(file: file)
        guard let members = reader.mapping(root, "") else { return (config, reader.diagnostics) }
        reader.warnUnknownKeys(members, allowed: knownKeys, keyPath: "", where: "site.yaml")

        config.title = reader.string(root["title"], "title")
        if let locale = reader.string(root["default_locale"], "default_locale") { config.defaultLocale = locale }
        if let locales = reader.stringList(root["locales"], "locales") { config.locales = locales }
        // Checked item by item on the nodes: the list may hold non-text items (already reported).
        for (index, item) in (root["locales"]?.array ?? []).enumerated() {
            if let locale = item.string, !LocaleCode.isValid(locale) {
                reader.error(item, "locales[\(index)]", "'\(locale)' is not a locale code: write it like 'en', 'fr' or 'fr-CA'")
            }
        }
        if let node = root["default_locale"], !LocaleCode.isValid(config.defaultLocale) {
            reader.error(node, "default_locale", "'\(config.defaultLocale)' is not a locale code: write it like 'en', 'fr' or 'fr-CA'")
        }
        if !config.locales.contains(config.defaultLocale) { config.locales.insert(config.defaultLocale, at: 0) }
        if let fallbacks = reader.mapping(root["fallbacks"], "fallbacks") {
            for member in fallbacks {
                let path = "fallbacks.\(member.key)"
                let chain: [String]?
                if let single = member.value.string { chain = [single] } else { chain = reader.stringList(member.value, path) }
                guard let chain else { continue }
                for target in chain + [member.key] where !config.locales.contains(target) {
                    reader.error(
                        member.value, path, "'\(target)' is not one of the site's locales (\(config.locales.joined(separator: ", ")))")
                }
                config.fallbacks[member.key] = chain
            }
        }
        if let routes = reader.stringList(root["app_routes"], "app_routes") {
            for (index, item) in (root["app_routes"]?.array ?? []).enumerated() {
                if let route = item.string, !route.hasPrefix("/") {
                    reader.error(item, "app_routes[\(index)]", "'\(route)' must start with '/': write it like '/drills'")
                }
            }
            config.appRoutes = Set(routes)
        }
        if let audiences = reader.mapping(root["audiences"], "audiences") {
            reader.warnUnknownKeys(audiences, allowed: ["roles", "tiers"], keyPath: "audiences", where: "audiences")
            config.roles = reader.stringList(root["audiences"]?["roles"], "audiences.roles") ?? []
            config.tiers = reader.stringList(root["audiences"]?["tiers"], "audiences.tiers") ?? []
            for name in config.audiences where !Identifier.isValid(name) {
                reader.error(root["audiences"] ?? root, "audiences", "'\(name)' is not a valid audience name: \(Identifier.rule)")
            }
        }
        if let ttl = reader.integer(root["ttl"], "ttl") { config.ttl = ttl }
        if let keep = reader.integer(root["keep"], "keep", minimum: 1) { config.keep = keep }
        if let policy = reader.string(root["stale_translations"], "stale_translations") {
            if let parsed = StalePolicy(rawValue: policy) {
                config.stalePolicy = parsed
            } else if let node = root["stale_translations"] {
                reader.error(node, "stale_translations", "must be 'warn' or 'fallback', found '\(policy)'")
            }
        }
        if let translations = reader.mapping(root["translations"], "translations") {
            reader.warnUnknownKeys(translations, allowed: ["links"], keyPath: "translations", where: "translations")
            if let node = root["translations"]?["links"], let policy = reader.string(node, "translations.links") {
                if let parsed = LinkPolicy(rawValue: policy) {
                    config.linkPolicy = parsed
                } else {
                    reader.error(node, "translations.links", "must be 'same' or 'localized', found '\(policy)'")
                }
            }
        }
        config.publishHook = reader.string(root["publish_hook"], "publish_hook")
        _ = reader.stringList(root["replicas"], "replicas")
        for (index, item) in (root["replicas"]?.array ?? []).enumerated() {
            guard let text = item.string else { continue }
            do { config.replicas.append(try ReplicaDestination(text)) } catch {
                reader.error(item, "replicas[\(index)]", error.description)
            }
        }
        config.drillCatalog = reader.string(root["drill_catalog"], "drill_catalog")
        config.feeds = FeedConfig.read(root["feeds"], reader: &reader)
        if let limits = reader.mapping(root["limits"], "limits") {
            reader.warnUnknownKeys(
                limits, allowed: ["max_file_bytes", "max_depth", "max_sections", "max_string_bytes"], keyPath: "limits", where: "limits")
            let node = root["limits"]
            if let value = reader.integer(node?["max_file_bytes"], "limits.max_file_bytes", minimum: 1) {
                config.limits.maxFileBytes = value
            }
            if let value = reader.integer(node?["max_depth"], "limits.max_depth", minimum: 4) { config.limits.maxDepth = value }
            if let value = reader.integer(node?["max_sections"], "limits.max_sections", minimum: 1) { config.limits.maxSections = value }
            if let value = reader.integer(node?["max_string_bytes"], "limits.max_string_bytes", minimum: 1) {
                config.limits.maxStringBytes = value
            }
        }
        if let node = root["dashboard"] { config.dashboardRoles = DashboardRoles.read(node, reader: &reader) }
        return (config, reader.diagnostics)
    }
}

/// BCP 47-ish locale codes as sites use them: `en`, `fr`, `fr-CA`, `zh-Hant`.
enum LocaleCode {
    static func isValid(_ code: String) -> Bool {
        let parts = code.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count),
            language.allSatisfy({ $0.isASCII && $0.isLowercase })
        else { return false }
        return parts.dropFirst().allSatisfy { part in
            (2...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }
}
