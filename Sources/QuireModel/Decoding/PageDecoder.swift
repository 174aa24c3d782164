public import Foundation

/// Decodes published pages for apps, lossily: a section whose type no registered decoder knows,
/// or that does not decode, is skipped and recorded with its key path; the rest of the page
/// decodes. A section that carries a `fallback` falls back to it when its own type is unknown,
/// does not decode, or needs a newer app (`min_app_version` above `appVersion`).
///
///     var decoder = PageDecoder(appVersion: "1.0")
///     decoder.register(PollSection.self)          // an app's own type; the last registration wins
///     let page = try decoder.decode(data)
///     for section in page.sections { ... }       // HeroBanner, MarkdownBlock, PollSection, ...
///     page.skipped                                // [(keyPath: "sections[3]", reason: ...)]
public struct PageDecoder: Sendable {
    public private(set) var decoders: [String: any SectionDecodable.Type]
    /// The app's version (`1.4`, `2.0.1`); nil renders every section it can decode.
    public var appVersion: String?

    public static let builtInTypes: [any SectionDecodable.Type] = [
        HeroBanner.self, MarkdownBlock.self, ProductGrid.self, DrillCarousel.self, CTAButton.self,
        VideoEmbed.self, ImageGallery.self, Divider.self, Announcement.self, PageLink.self,
    ]

    /// A decoder that knows the built-in section types.
    public init(appVersion: String? = nil) {
        self.appVersion = appVersion
        decoders = [:]
        for type in Self.builtInTypes { register(type) }
    }

    /// Adds a section type, or replaces the decoder of one with the same `sectionType`.
    public mutating func register(_ type: any SectionDecodable.Type) {
        decoders[type.sectionType] = type
    }

    /// Throws only when the data is not a published page at all (not JSON, no `page_id`).
    public func decode(_ data: Data) throws -> DecodedPage {
        let decoder = JSONDecoder()
        decoder.userInfo[SectionListDecoding.key] = SectionListDecoding(decoders: decoders, appVersion: appVersion)
        return try decoder.decode(DecodedPage.self, from: data)
    }
}

/// A published page, decoded.
public struct DecodedPage: Decodable, Sendable {
    /// A section left out, with where it was (`sections[3]`, `header[0]`) and why.
    public struct Skip: Sendable, Hashable {
        public var keyPath: String
        public var reason: String

        public init(keyPath: String, reason: String) {
            self.keyPath = keyPath
            self.reason = reason
        }
    }

    public struct Refresh: Decodable, Sendable, Hashable {
        /// Seconds between fetches while the page is shown.
        public var interval: Int?
        /// Fetch again whenever the page appears.
        public var onAppear: Bool?

        public init(interval: Int? = nil, onAppear: Bool? = nil) {
            self.interval = interval
            self.onAppear = onAppear
        }

        enum CodingKeys: String, CodingKey {
            case interval
            case onAppear = "on_appear"
        }
    }

    public struct Feed: Decodable, Sendable, Hashable {
        public var name: String
        /// `newest` or `oldest`; kept as text so a new order does not fail decoding.
        public var order: String
    }

    public var pageID: String
    public var locale: String?
    /// Set on an audience variant (`page@pro.json`).
    public var audience: String?
    public var title: String?
    /// Seconds the page may be cached.
    public var ttl: Int?
    /// A stub left at an old page id: load this page id instead.
    public var redirectTo: String?
    public var refresh: Refresh?
    /// Pagination: this part's number, how many there are, and the next part's URL relative to this one.
    public var part: Int?
    public var parts: Int?
    public var next: String?
    /// On a feed's parts: which feed, and whether `next` goes back in time (`newest`) or forward.
    public var feed: Feed?
    public var nav: [any SectionDecodable] = []
    public var header: [any SectionDecodable] = []
    public var footer: [any SectionDecodable] = []
    public var sections: [any SectionDecodable] = []
    public var skipped: [Skip] = []

    enum CodingKeys: String, CodingKey {
        case locale, audience, title, ttl, refresh, part, parts, next, feed, nav, header, footer, sections
        case pageID = "page_id"
        case redirectTo = "redirect_to"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pageID = try container.decode(String.self, forKey: .pageID)
        locale = try? container.decodeIfPresent(String.self, forKey: .locale)
        audience = try? container.decodeIfPresent(String.self, forKey: .audience)
        title = try? container.decodeIfPresent(String.self, forKey: .title)
        ttl = try? container.decodeIfPresent(Int.self, forKey: .ttl)
        redirectTo = try? container.decodeIfPresent(String.self, forKey: .redirectTo)
        refresh = try? container.decodeIfPresent(Refresh.self, forKey: .refresh)
        part = try? container.decodeIfPresent(Int.self, forKey: .part)
        parts = try? container.decodeIfPresent(Int.self, forKey: .parts)
        next = try? container.decodeIfPresent(String.self, forKey: .next)
        feed = try? container.decodeIfPresent(Feed.self, forKey: .feed)
        let lists = decoder.userInfo[SectionListDecoding.key] as? SectionListDecoding ?? SectionListDecoding(decoders: [:], appVersion: nil)
        nav = lists.decode(container, .nav, skipped: &skipped)
        header = lists.decode(container, .header, skipped: &skipped)
        footer = lists.decode(container, .footer, skipped: &skipped)
        sections = lists.decode(container, .sections, skipped: &skipped)
    }
}

/// The lossy part: one section list, each section by its registered decoder.
struct SectionListDecoding: Sendable {
    static let key = CodingUserInfoKey(rawValue: "quire.sectionListDecoding")!

    var decoders: [String: any SectionDecodable.Type]
    var appVersion: String?

    func decode(_ page: KeyedDecodingContainer<DecodedPage.CodingKeys>, _ key: DecodedPage.CodingKeys, skipped: inout [DecodedPage.Skip])
        -> [any SectionDecodable]
    {
        guard page.contains(key) else { return [] }
        guard var list = try? page.nestedUnkeyedContainer(forKey: key) else {
            skipped.append(.init(keyPath: key.stringValue, reason: "is not a list of sections"))
            return []
        }
        var sections: [any SectionDecodable] = []
        while !list.isAtEnd {
            let keyPath = "\(key.stringValue)[\(list.currentIndex)]"
            guard let element = try? list.superDecoder() else { break }
            switch section(element) {
            case .success(let section): sections.append(section)
            case .failure(let skip): skipped.append(.init(keyPath: keyPath, reason: skip.reason))
            }
        }
        return sections
    }

    struct Failure: Error { var reason: String }

    func section(_ decoder: any Decoder, allowFallback: Bool = true) -> Result<any SectionDecodable, Failure> {
        guard let object = try? decoder.container(keyedBy: AnyCodingKey.self),
            let type = try? object.decode(String.self, forKey: AnyCodingKey("type"))
        else {
            return .failure(Failure(reason: "a section must be an object with a 'type'"))
        }
        let minimum = try? object.decodeIfPresent(String.self, forKey: AnyCodingKey("min_app_version"))
        var problem: String
        if let sectionType = decoders[type] {
            if let minimum, let appVersion, AppVersion.isOlder(appVersion, than: minimum) {
                problem = "section type '\(type)' needs app version \(minimum) (this app is \(appVersion))"
            } else {
                do { return .success(try sectionType.init(from: decoder)) } catch {
                    problem = "a '\(type)' section that does not decode: \(Self.describe(error))"
                }
            }
        } else {
            problem = "unknown section type '\(type)'"
        }
        if allowFallback, object.contains(AnyCodingKey("fallback")),
            let fallback = try? object.superDecoder(forKey: AnyCodingKey("fallback"))
        {
            switch section(fallback, allowFallback: false) {
            case .success(let section): return .success(section)
            case .failure(let failure): problem += "; its fallback: \(failure.reason)"
            }
        }
        return .failure(Failure(reason: problem))
    }

    /// A decoding error as a short sentence with its path inside the section.
    static func describe(_ error: any Error) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.drop {
                $0.stringValue != "sections" && $0.stringValue != "nav" && $0.stringValue != "header" && $0.stringValue != "footer"
            }
            .dropFirst(2).map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            .trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?: return "missing '\(path(context.codingPath + [key]))'"
        case .typeMismatch(let type, let context)?: return "'\(path(context.codingPath))' is not \(type)"
        case .valueNotFound(let type, let context)?: return "'\(path(context.codingPath))' is null, expected \(type)"
        case .dataCorrupted(let context)?: return "'\(path(context.codingPath))': \(context.debugDescription)"
        default: return "\(error)"
        }
    }
}

/// Dotted app versions compared number by number (`1.10` is newer than `1.9`).
enum AppVersion {
    static func isOlder(_ version: String, than other: String) -> Bool {
        let left = version.split(separator: ".").map { Int($0) ?? 0 }
        let right = other.split(separator: ".").map { Int($0) ?? 0 }
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            if a != b { return a < b }
        }
        return false
    }
}
