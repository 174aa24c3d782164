public import Foundation

/// `<locale>/index.json`: the pages an app may fetch in a locale, and how it resolves the links
/// pages hold. URLs are resolved against the index's own URL
/// (`https://cdn.example/<site>/current/en/index.json`), so the app needs no other configuration.
public struct PageIndex: Decodable, Sendable, Hashable {
    public struct Page: Decodable, Sendable, Hashable {
        public var id: String
        public var title: String?
        public var ttl: Int
        /// Files of the public variant: `<id>.json`, `<id>.2.json`, ...
        public var parts: Int
        /// Audiences with a variant of their own: `<id>@<audience>.json`.
        public var audiences: [String]
        /// Feeds listing the page: `feeds/<name>.json`.
        public var feeds: [String]
        public var publishAt: String?
        /// `publish_at`, else when a build first listed the page (ISO 8601).
        public var publishedAt: String
        /// The version whose build last wrote the page's files (`v000043`).
        public var changedIn: String

        enum CodingKeys: String, CodingKey {
            case id, title, ttl, parts, audiences, feeds
            case publishAt = "publish_at"
            case publishedAt = "published_at"
            case changedIn = "changed_in"
        }
    }

    /// Where a `navigate` destination leads.
    public enum Destination: Sendable, Hashable {
        /// A page of the site: fetch `url`.
        case page(id: String, url: URL)
        /// One of the app's own screens (`app_routes` in site.yaml), with any query as written.
        case appRoute(String)
        /// Neither: an app should not follow it (Quire refuses such a destination when it builds).
        case unknown(String)
    }

    public var locale: String
    /// Where `/assets/<file>` resolves, relative to the index's URL: `<assets><file>`.
    public var assets: String
    public var appRoutes: [String]
    public var pages: [Page]

    enum CodingKeys: String, CodingKey {
        case locale, assets, pages
        case appRoutes = "app_routes"
    }

    public static func decode(_ data: Data) throws -> PageIndex { try JSONDecoder().decode(PageIndex.self, from: data) }

    /// The URL of an `image_url` (or any URL a page holds) for an index fetched from `indexURL`:
    /// `/assets/x.jpg` is the version's asset, an absolute URL is itself.
    public func assetURL(_ url: String, indexURL: URL) -> URL? {
        if url.hasPrefix("/assets/") { return URL(string: assets + url.dropFirst("/assets/".count), relativeTo: indexURL)?.absoluteURL }
        return URL(string: url).flatMap { $0.scheme == nil ? nil : $0 }
    }

    /// The URL of a page's file (its first part, public variant) for an index fetched from `indexURL`.
    public func pageURL(_ id: String, indexURL: URL) -> URL? {
        URL(string: id + ".json", relativeTo: indexURL)?.absoluteURL
    }

    /// A `navigate` destination (`/drills`, `/trex-store`, `/drills?tab=new`): an app route when
    /// its path is one of `app_routes`, else the page it names.
    public func destination(_ destination: String, indexURL: URL) -> Destination {
        let path = String(destination.prefix { $0 != "?" && $0 != "#" })
        if appRoutes.contains(path) { return .appRoute(destination) }
        let id = String(path.dropFirst())
        guard path.hasPrefix("/"), pages.contains(where: { $0.id == id }), let url = pageURL(id, indexURL: indexURL) else {
            return .unknown(destination)
        }
        return .page(id: id, url: url)
    }
}
