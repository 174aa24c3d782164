public import Foundation

/// `<locale>/index.json` and its parts: the pages an app may fetch in a locale, and how it
/// resolves the links pages hold. The index file itself is small and says how links resolve and
/// how many parts list the pages (`index.1.json` ... `index.<parts>.json` beside it); a page is
/// listed in the part `part(of:parts:)` names, so a save rewrites one part, not a list of every
/// page. URLs are resolved against the index's own URL
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

    /// `index.<part>.json`: the pages whose id `part(of:parts:)` gives this part, by id.
    public struct Part: Decodable, Sendable, Hashable {
        public var locale: String
        public var part: Int
        public var pages: [Page]

        public static func decode(_ data: Data) throws -> Part { try JSONDecoder().decode(Part.self, from: data) }
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
    /// How many part files list the pages.
    public var parts: Int
    /// The pages of the parts added so far (`add`): not in the index file itself.
    public var pages: [Page] = []

    enum CodingKeys: String, CodingKey {
        case locale, assets, parts
        case appRoutes = "app_routes"
    }

    public static func decode(_ data: Data) throws -> PageIndex { try JSONDecoder().decode(PageIndex.self, from: data) }

    /// The part (1 ... `parts`) listing page `id`: 1 + ⌊h · parts / 2³²⌋, where h is the 32-bit
    /// FNV-1a hash of the id's UTF-8 bytes put through MurmurHash3's finalizer (`fmix32`), which
    /// spreads ids that differ in a digit or two (`p-00041`, `p-00042`) evenly over the parts.
    public static func part(of id: String, parts: Int) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in id.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        hash ^= hash >> 16
        hash &*= 0x85eb_ca6b
        hash ^= hash >> 13
        hash &*= 0xc2b2_ae35
        hash ^= hash >> 16
        return 1 + Int((UInt64(hash) * UInt64(max(parts, 1))) >> 32)
    }

    /// The file name of a part, beside the index file.
    public static func partFile(_ part: Int) -> String { "index.\(part).json" }

    /// The URL of a part for an index fetched from `indexURL`.
    public func partURL(_ part: Int, indexURL: URL) -> URL? {
        URL(string: Self.partFile(part), relativeTo: indexURL)?.absoluteURL
    }

    /// Adds a part's pages to `pages` (a part added again replaces its pages).
    public mutating func add(_ part: Part) {
        pages.removeAll { Self.part(of: $0.id, parts: parts) == part.part }
        pages += part.pages
    }

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
    /// its path is one of `app_routes`, else the page it names, when the part listing it has
    /// been added (`add`; `part(of:parts:)` says which one to fetch).
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
