import Foundation
import QuireModel

/// `<locale>/index.json` of every version: each page apps may fetch in that locale (drafts and
/// pages outside their schedule have no public file, so they are not listed), with what an app
/// needs to prefetch it, check a deep link or draw a site map, and how the app resolves the links
/// pages hold (`assets`, `app_routes`: README, "The URL contract").
///
/// Derived from the page files' metadata (`metadata(of:page:)` puts a page's title there), so
/// carried pages need no model; kept between builds like `CacheHeaderFiles`: a page that changes
/// replaces its own entries, and each entry's bytes are encoded once.
///
/// Two members depend on the versions before this one, not on the sources: `changed_in` (the
/// version whose build last wrote one of the page's files in that locale) and `published_at`
/// (the page's `publish_at`, else when a build first listed it). A full build reads them back from
/// the newest version's index (`read`).
struct PageIndexFiles: Sendable {
    static func path(locale: String) -> String { "\(locale)/index.json" }

    /// What one locale's files say of a page.
    struct Listing: Sendable, Equatable {
        var title: String?
        var ttl: Int
        var parts = 1
        var audiences: [String] = []
        var publishAt: String?
        /// For the page's card in a feed (not listed in the index).
        var summary: String?
        var imageURL: String?
        var tags: [String] = []

        /// Equal in what the index lists.
        func listsSame(as other: Listing) -> Bool {
            (title, ttl, parts, audiences, publishAt) == (other.title, other.ttl, other.parts, other.audiences, other.publishAt)
        }
    }

    /// A page's entries, by locale.
    func entries(of pageID: String) -> [String: Entry] {
        var entries: [String: Entry] = [:]
        for (locale, index) in locales { if let entry = index.entries[pageID]?.entry { entries[locale] = entry } }
        return entries
    }

    /// Every listed page.
    var pageIDs: Set<String> { locales.values.reduce(into: Set<String>()) { $0.formUnion($1.entries.keys) } }

    struct Entry: Sendable, Equatable {
        var listing: Listing
        var feeds: [String]
        var publishedAt: String
        var changedIn: VersionID
    }

    private struct LocaleIndex: Sendable {
        var entries: [String: (entry: Entry, bytes: [UInt8])] = [:]
        var sortedIDs: [String]? = []
    }

    let header: [String: [UInt8]]
    private var locales: [String: LocaleIndex] = [:]
    /// The site's feeds: an entry names those that list it.
    let feeds: [FeedConfig]

    /// `previous`: what the newest version's index files say, by locale (`read`).
    init(locales: [String], appRoutes: Set<String>, feeds: [FeedConfig] = [], previous: [String: [String: Entry]] = [:]) {
        self.feeds = feeds
        var header: [String: [UInt8]] = [:]
        for locale in locales {
            let object: JSONObject = [
                "locale": .string(locale),
                // Relative to this file: `/assets/x.jpg` in a page is `<assets>x.jpg` here.
                "assets": "../assets/",
                "app_routes": .array(appRoutes.sorted().map(JSONValue.string)),
            ]
            var bytes = JSONWriter(pretty: false).bytes(.object(object))
            bytes.removeLast()  // the object's `}`: the pages follow
            header[locale] = bytes + Array(",\"pages\":[".utf8)
            var index = LocaleIndex()
            for (id, entry) in previous[locale] ?? [:] { index.entries[id] = (entry, Self.encode(id, entry)) }
            index.sortedIDs = nil
            self.locales[locale] = index
        }
        self.header = header
    }

    /// The members of a page's public first part's metadata the index and feeds are made from:
    /// `text` gives a string in the part's locale.
    static func metadata(of model: PageModel, page: JSONValue, text: (LocalizableText) -> String) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if let title = page[PageMember.title]?.stringValue { members.append((PageMember.title, .string(title))) }
        if let publishAt = model.schedule.publishAt { members.append(("publish_at", .string(Self.timestamp(publishAt)))) }
        if let summary = model.card.summary { members.append(("summary", .string(text(summary)))) }
        let hero = page["sections"]?.arrayValue?.first { $0["type"]?.stringValue == "hero_banner" }
        if let image = model.card.imageURL ?? hero?["image_url"]?.stringValue { members.append(("image_url", .string(image))) }
        if !model.card.tags.isEmpty { members.append(("tags", .array(model.card.tags.map(JSONValue.string)))) }
        return members
    }

    static func timestamp(_ date: Date) -> String { Timestamp.string(seconds: time_t(date.timeIntervalSince1970.rounded(.down))) }

    /// Per page and locale, what its served files say (public first part, audience variants).
    static func listings(_ files: some Sequence<OutputFile>) -> [String: [String: Listing]] {
        var listings: [String: [String: Listing]] = [:]
        var audiences: [String: [String: Set<String>]] = [:]
        for file in files where OutputPath.servesPage(file.path) {
            let page = OutputMetadata(file.metadata)
            guard let metadata = file.metadata, let pageID = page.pageID, let locale = page.locale, let ttl = page.ttl else { continue }
            if let audience = page.audience {
                audiences[pageID, default: [:]][locale, default: []].insert(audience)
            } else if page.part == 1 {
                listings[pageID, default: [:]][locale] = Listing(
                    title: page.title, ttl: ttl, parts: page.parts,
                    publishAt: metadata["publish_at"]?.stringValue, summary: metadata["summary"]?.stringValue,
                    imageURL: metadata["image_url"]?.stringValue, tags: metadata["tags"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            }
        }
        for (pageID, byLocale) in audiences {
            for (locale, names) in byLocale where listings[pageID]?[locale] != nil { listings[pageID]?[locale]?.audiences = names.sorted() }
        }
        return listings
    }

    /// Per page, the locales where this build wrote a served file whose input differs from the
    /// newest version's (the rule `build.json`'s `changes` follows).
    static func changedLocales(_ files: some Sequence<OutputFile>, published: [String: PublishedFile]) -> [String: Set<String>] {
        var changed: [String: Set<String>] = [:]
        for file in files where OutputPath.servesPage(file.path) {
            if case .carried = file.content { continue }
            let page = OutputMetadata(file.metadata)
            guard let pageID = page.pageID, let locale = page.locale, published[file.path]?.inputDigest != file.inputDigest
            else { continue }
            changed[pageID, default: []].insert(locale)
        }
        return changed
    }

    /// Sets a page's entries from its listings (a locale without one drops the page); `changed`:
    /// the locales whose files this build wrote anew; `version`: the version being built, `now`
    /// its time. Returns the locales whose entry changed.
    @discardableResult
    mutating func set(
        _ pageID: String, listings: [String: Listing], changed: Set<String>, version: VersionID, now: String
    ) -> Set<String> {
        var touched = Set<String>()
        for locale in Array(locales.keys) {  // not the keys view: it would keep the storage shared, and each write copy it
            let old = locales[locale]?.entries[pageID]?.entry
            var new: Entry?
            if let listing = listings[locale] {
                new = Entry(
                    listing: listing, feeds: feeds.filter { $0.includes(pageID, tags: listing.tags) }.map(\.name),
                    publishedAt: listing.publishAt ?? old?.publishedAt ?? now,
                    changedIn: old == nil || changed.contains(locale) || !old!.listing.listsSame(as: listing) ? version : old!.changedIn)
            }
            guard new != old else { continue }
            touched.insert(locale)
            if new == nil || old == nil { locales[locale]?.sortedIDs = nil }
            locales[locale]?.entries[pageID] = new.map { ($0, Self.encode(pageID, $0)) }
        }
        return touched
    }

    /// Sets every page from a whole version's files (a full build): pages without files leave.
    mutating func setEvery(_ files: [OutputFile], published: [String: PublishedFile], version: VersionID, now: String) {
        let listings = Self.listings(files)
        let changed = Self.changedLocales(files, published: published)
        keep(only: Set(listings.keys))
        for (pageID, byLocale) in listings {
            set(pageID, listings: byLocale, changed: changed[pageID] ?? [], version: version, now: now)
        }
    }

    /// Drops every page not in `pageIDs`.
    private mutating func keep(only pageIDs: Set<String>) {
        for locale in Array(locales.keys) {
            let gone = locales[locale]?.entries.keys.filter { !pageIDs.contains($0) } ?? []
            if gone.isEmpty { continue }
            for id in gone { locales[locale]?.entries[id] = nil }
            locales[locale]?.sortedIDs = nil
        }
    }

    /// The index files of `only` locales (nil: every locale), carried when their bytes equal the newest version's.
    mutating func files(published: [String: PublishedFile], only: Set<String>? = nil) -> [OutputFile] {
        var files: [OutputFile] = []
        for locale in locales.keys.sorted() where only?.contains(locale) ?? true {
            guard var index = locales[locale], let header = header[locale] else { continue }
            let ids = index.sortedIDs ?? index.entries.keys.sorted()
            index.sortedIDs = ids
            locales[locale] = index
            var bytes = header
            bytes.reserveCapacity(header.count + ids.count * 128)
            for (position, id) in ids.enumerated() {
                bytes += position == 0 ? "\n".utf8 : ",\n".utf8
                bytes += index.entries[id]?.bytes ?? []
            }
            bytes += "\n]}\n".utf8
            let path = Self.path(locale: locale)
            let digest = SHA256.hash(bytes)
            files.append(OutputFile(path: path, content: published[path]?.sha256 == digest ? .carried : .bytes(bytes), inputDigest: digest))
        }
        return files
    }

    private static func encode(_ id: String, _ entry: Entry) -> [UInt8] {
        var object: JSONObject = ["id": .string(id)]
        if let title = entry.listing.title { object["title"] = .string(title) }
        object["ttl"] = .integer(entry.listing.ttl)
        object["parts"] = .integer(entry.listing.parts)
        object["audiences"] = .array(entry.listing.audiences.map(JSONValue.string))
        object["feeds"] = .array(entry.feeds.map(JSONValue.string))
        if let publishAt = entry.listing.publishAt { object["publish_at"] = .string(publishAt) }
        object["published_at"] = .string(entry.publishedAt)
        object["changed_in"] = .string(entry.changedIn.description)
        var bytes = JSONWriter(pretty: false).bytes(.object(object))
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        return bytes
    }

    /// The entries of an index file as `files` wrote it (nil: not one).
    static func read(_ bytes: [UInt8]) -> [String: Entry]? {
        guard let pages = StoredJSONReader.parse(bytes)?["pages"]?.arrayValue else { return nil }
        var entries: [String: Entry] = [:]
        for page in pages {
            guard let id = page["id"]?.stringValue, let ttl = page["ttl"]?.intValue,
                let publishedAt = page["published_at"]?.stringValue,
                let changedIn = page["changed_in"]?.stringValue.flatMap(VersionID.init)
            else { continue }
            let listing = Listing(
                title: page["title"]?.stringValue, ttl: ttl, parts: page["parts"]?.intValue ?? 1,
                audiences: page["audiences"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                publishAt: page["publish_at"]?.stringValue)
            entries[id] = Entry(
                listing: listing, feeds: page["feeds"]?.arrayValue?.compactMap(\.stringValue) ?? [], publishedAt: publishedAt,
                changedIn: changedIn)
        }
        return entries
    }
}
