import Foundation
import QuireModel

/// `<locale>/index.json` and its parts (`<locale>/index.<k>.json`) in every version: each page
/// apps may fetch in that locale (drafts and pages outside their schedule have no public file, so
/// they are not listed), with what an app needs to prefetch it, check a deep link or draw a site
/// map, and how the app resolves the links pages hold (`assets`, `app_routes`: README, "The URL
/// contract").
///
/// The index file says how many parts there are; a page is listed in the part
/// `PageIndex.part(of:parts:)` names, and the count grows in powers of two with the pages, so a
/// save rewrites the one part holding its page, whatever the size of the site. Derived from the
/// page files' metadata (`metadata(of:page:)` puts a page's title there), so carried pages need no
/// model; kept between builds like `FeedFiles`: a page that changes replaces its own entries, and
/// only the parts it is listed in are written again.
///
/// Two members depend on the versions before this one, not on the sources: `changed_in` (the
/// version whose build last wrote one of the page's files in that locale) and `published_at`
/// (the page's `publish_at`, else when a build first listed it). A full build reads them back from
/// the newest version's index (`read`).
struct PageIndexFiles: Sendable {
    static func path(locale: String) -> String { "\(locale)/index.json" }
    static func partPath(locale: String, part: Int) -> String { "\(locale)/\(PageIndex.partFile(part))" }

    /// The most pages a part lists on average (at least half as many once there are two parts;
    /// the hash spreads them within about half as much again, `PageIndexTests`).
    static let pagesPerPart = 256

    /// The parts of an index of `pages` pages: the smallest power of two holding them.
    static func partCount(pages: Int) -> Int {
        var parts = 1
        while pages > parts * pagesPerPart { parts *= 2 }
        return parts
    }

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
    func entries(of pageID: String) -> [String: BoxedEntry] {
        var entries: [String: BoxedEntry] = [:]
        for (locale, index) in locales { if let entry = index.entries[pageID] { entries[locale] = entry } }
        return entries
    }

    /// Every page listed in `locale`, by id.
    func entries(in locale: String) -> [String: BoxedEntry] { locales[locale]?.entries ?? [:] }

    struct Entry: Sendable, Equatable {
        var listing: Listing
        var feeds: [String]
        var publishedAt: String
        var changedIn: VersionID

        /// Equal in what the index lists (`encode`).
        func listsSame(as other: Entry) -> Bool {
            listing.listsSame(as: other.listing) && (feeds, publishedAt, changedIn) == (other.feeds, other.publishedAt, other.changedIn)
        }
    }

    /// An entry, boxed: a dictionary of 100,000 pages has room for 262,144, and each empty slot
    /// held a whole entry. Its bytes are written when its part is (`render`), not kept: a watcher
    /// held 60 MB of them at 100,000 pages.
    final class BoxedEntry: Sendable {
        let entry: Entry

        init(_ entry: Entry) { self.entry = entry }
    }

    /// One locale's entries, split into parts.
    private struct LocaleIndex: Sendable {
        var entries: [String: BoxedEntry] = [:]
        /// The part count `members` is split for (0: not split yet).
        var parts = 0
        /// The page ids of each part (part k at k - 1).
        var members: [Set<String>] = []
        /// Parts (1-based) to render again.
        var dirty = Set<Int>()

        /// Splits the entries again when their count calls for another part count; true if it did.
        mutating func split() -> Bool {
            let parts = PageIndexFiles.partCount(pages: entries.count)
            guard parts != self.parts else { return false }
            restoreSplit(parts: parts)
            dirty = Set(1...parts)
            return true
        }

        /// Split for `parts` (as the restart file says), nothing marked to render again.
        mutating func restoreSplit(parts: Int) {
            guard parts > 0 else { return }
            self.parts = parts
            members = Array(repeating: [], count: parts)
            for id in entries.keys { members[PageIndex.part(of: id, parts: parts) - 1].insert(id) }
        }

        /// Sets a page's entry from its listing here (nil: none, the page leaves); `changed`:
        /// this build wrote one of its files here anew.
        mutating func set(
            _ pageID: String, listing: Listing?, changed: Bool, feeds: [FeedConfig], version: VersionID, now: String
        ) {
            let boxed = entries[pageID]
            let old = boxed?.entry
            var new: Entry?
            if let listing {
                new = Entry(
                    listing: listing, feeds: feeds.filter { $0.includes(pageID, tags: listing.tags) }.map(\.name),
                    publishedAt: listing.publishAt ?? old?.publishedAt ?? now,
                    changedIn: old == nil || changed || !old!.listing.listsSame(as: listing) ? version : old!.changedIn)
            }
            guard new != old else { return }
            // Read back from the index, an entry lacks what only feeds show: its part stays.
            if let new, let boxed, new.listsSame(as: boxed.entry) {
                entries[pageID] = BoxedEntry(new)
            } else {
                set(pageID, new.map(BoxedEntry.init))
            }
        }

        /// Drops every page `found` does not list.
        mutating func keep(only found: LocaleFiles) {
            let gone = entries.keys.filter { found.listing(of: $0) == nil }
            for id in gone { set(id, nil) }
        }

        mutating func set(_ id: String, _ new: BoxedEntry?) {
            entries[id] = new
            guard parts > 0 else { return }
            let part = PageIndex.part(of: id, parts: parts)
            if new == nil { members[part - 1].remove(id) } else { members[part - 1].insert(id) }
            dirty.insert(part)
        }
    }

    private let heads: [String: [UInt8]]
    private var locales: [String: LocaleIndex] = [:]
    private var published = PublishedDigests()
    /// The site's feeds: an entry names those that list it.
    let feeds: [FeedConfig]

    /// `previous`: what the newest version's index files say, by locale (`read`).
    init(locales: [String], appRoutes: Set<String>, feeds: [FeedConfig] = [], previous: [String: [String: BoxedEntry]] = [:]) {
        self.feeds = feeds
        var heads: [String: [UInt8]] = [:]
        for locale in locales {
            let object: JSONObject = [
                "locale": .string(locale),
                // Relative to this file: `/assets/x.jpg` in a page is `<assets>x.jpg` here.
                "assets": "../assets/",
                "app_routes": .array(appRoutes.sorted().map(JSONValue.string)),
            ]
            var bytes = JSONWriter(pretty: false).bytes(.object(object))
            bytes.removeLast()  // the object's `}`: the part count follows
            heads[locale] = bytes
            self.locales[locale] = LocaleIndex(entries: previous[locale] ?? [:])
        }
        self.heads = heads
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

    /// Sets a page's entries from its own files (a delta build): a locale without a listing
    /// drops the page. `version`: the version being built, `now` its time.
    mutating func set(_ pageID: String, files: [OutputFile], published: [String: PublishedFile], version: VersionID, now: String) {
        for locale in Array(locales.keys) {  // not the keys view: it would keep the storage shared, and each write copy it
            let found = Self.listings(files, locale: locale, published: published)
            locales[locale]?.set(
                pageID, listing: found.listing(of: pageID), changed: found.changed(pageID), feeds: feeds, version: version, now: now)
        }
    }

    /// Sets every page from a whole version's files (a full build): pages without files leave.
    /// Each locale on a core of its own: a locale's entries are a table of their own.
    mutating func setEvery(_ files: [OutputFile], published: [String: PublishedFile], version: VersionID, now: String) {
        // Taken out, so that each is the only reference to its table: updated in place, not copied.
        var taken = locales.map { (locale: $0.key, index: $0.value) }
        locales = [:]
        let feeds = feeds
        taken.withUnsafeMutableBufferPointer { taken in
            WideConcurrentPerform.run(iterations: taken.count) { position in
                let found = Self.listings(
                    files, locale: taken[position].locale, published: published, expected: files.count / max(taken.count, 1))
                taken[position].index.keep(only: found)
                taken[position].index.entries.reserveCapacity(found.rows.count)
                for row in found.rows {
                    guard let listing = row.listing else { continue }
                    taken[position].index.set(row.pageID, listing: listing, changed: row.changed, feeds: feeds, version: version, now: now)
                }
            }
        }
        for (locale, index) in taken { locales[locale] = index }
    }

    /// The index files that changed since the last call (every file on the first), and the
    /// paths of parts that are gone. `base`: the newest version's files, for a first call.
    mutating func files(base: [String: PublishedFile]? = nil) -> (files: [OutputFile], removed: [String]) {
        var made: [PublishedDigests.Made] = []
        let everything = base != nil
        for locale in locales.keys.sorted() {
            guard var index = locales[locale], let head = heads[locale] else { continue }
            let split = index.split()
            let parts = everything ? Array(1...index.parts) : index.dirty.sorted()
            index.dirty = []
            locales[locale] = index
            let settled = index
            if everything || split {
                made.append((Self.path(locale: locale), nil, { head + Array(",\"parts\":\(settled.parts)}\n".utf8) }))
            }
            for part in parts {
                made.append((Self.partPath(locale: locale, part: part), nil, { Self.render(part, of: settled, locale: locale) }))
            }
        }
        let files = published.files(made, base: base)
        let layout = locales.mapValues(\.parts)
        let removed = published.removed(layout: layout, listingAll: everything) {
            var current = Set<String>()
            for (locale, parts) in layout {
                current.insert(Self.path(locale: locale))
                for part in 1...parts { current.insert(Self.partPath(locale: locale, part: part)) }
            }
            return current
        }
        return (files, removed)
    }

    private static func render(_ part: Int, of index: LocaleIndex, locale: String) -> [UInt8] {
        var head = JSONWriter(pretty: false).bytes(["locale": .string(locale), "part": .integer(part)])
        head.removeLast()  // the object's `}`: the pages follow
        let ids = index.members[part - 1].sorted()
        var out = ByteSink(capacity: head.count + 16 + ids.count * 192)
        out.append(head)
        out.append(",\"pages\":[")
        for (position, id) in ids.enumerated() {
            out.append(position == 0 ? "\n" : ",\n")
            if let entry = index.entries[id]?.entry { write(id, entry, into: &out) }
        }
        out.append("\n]}\n")
        return out.array()
    }

    /// One entry as its part lists it, in one line, as `JSONWriter(pretty: false)` writes an
    /// object of these members: a save writes its part's few hundred entries again.
    private static func write(_ id: String, _ entry: Entry, into out: inout ByteSink) {
        func member(_ key: StaticString, _ text: String) {
            out.append(key)
            JSONWriter.writeString(text, into: &out)
        }
        func member(_ key: StaticString, _ texts: [String]) {
            out.append(key)
            out.append(UInt8(ascii: "["))
            for (index, text) in texts.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(text, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        member("{\"id\":", id)
        if let title = entry.listing.title { member(",\"title\":", title) }
        out.append(",\"ttl\":")
        JSONWriter.writeInteger(entry.listing.ttl, into: &out)
        out.append(",\"parts\":")
        JSONWriter.writeInteger(entry.listing.parts, into: &out)
        member(",\"audiences\":", entry.listing.audiences)
        member(",\"feeds\":", entry.feeds)
        if let publishAt = entry.listing.publishAt { member(",\"publish_at\":", publishAt) }
        member(",\"published_at\":", entry.publishedAt)
        member(",\"changed_in\":", entry.changedIn.description)
        out.append(UInt8(ascii: "}"))
    }

    // MARK: The restart file

    /// Each locale's entries and part count, and the digests of the files last made.
    func write(to writer: inout BinaryWriter) {
        writer.array(locales) { writer, locale in
            writer.string(locale.key)
            writer.int(locale.value.parts)
            writer.array(locale.value.entries) { writer, entry in
                writer.string(entry.key)
                Self.write(entry.value.entry, to: &writer)
            }
        }
        published.write(to: &writer)
    }

    /// The index a watcher kept, for the same locales, app routes and feeds.
    init(locales: [String], appRoutes: Set<String>, feeds: [FeedConfig], reading reader: inout BinaryReader)
        throws(BinaryReader.Malformed)
    {
        var previous: [String: [String: BoxedEntry]] = [:]
        var parts: [String: Int] = [:]
        for _ in 0..<(try reader.count()) {
            let locale = try reader.string()
            let split = try reader.int()
            let count = try reader.count()
            guard split == 0 || split == Self.partCount(pages: count) else { throw BinaryReader.Malformed() }
            parts[locale] = split
            var entries: [String: BoxedEntry] = [:]
            entries.reserveCapacity(count)
            for _ in 0..<count { entries[try reader.sharedString()] = BoxedEntry(try Self.entry(reading: &reader)) }
            previous[locale] = entries
        }
        guard Set(previous.keys) == Set(locales) else { throw BinaryReader.Malformed() }
        self.init(locales: locales, appRoutes: appRoutes, feeds: feeds, previous: previous)
        for (locale, count) in parts { self.locales[locale]?.restoreSplit(parts: count) }
        published = try PublishedDigests(reading: &reader)
    }

    private static func write(_ entry: Entry, to writer: inout BinaryWriter) {
        let listing = entry.listing
        writer.optionalString(listing.title)
        writer.int(listing.ttl)
        writer.int(listing.parts)
        writer.strings(listing.audiences)
        writer.optionalString(listing.publishAt)
        writer.optionalString(listing.summary)
        writer.optionalString(listing.imageURL)
        writer.strings(listing.tags)
        writer.strings(entry.feeds)
        writer.string(entry.publishedAt)
        writer.int(entry.changedIn.number)
    }

    private static func entry(reading reader: inout BinaryReader) throws(BinaryReader.Malformed) -> Entry {
        // Each locale lists every page again, and many pages share an image or a publish date.
        let listing = Listing(
            title: try reader.optionalSharedString(), ttl: try reader.int(), parts: try reader.int(),
            audiences: try reader.sharedStrings(), publishAt: try reader.optionalSharedString(),
            summary: try reader.optionalSharedString(), imageURL: try reader.optionalSharedString(), tags: try reader.sharedStrings())
        return Entry(
            listing: listing, feeds: try reader.sharedStrings(), publishedAt: try reader.sharedString(),
            changedIn: VersionID(try reader.int()))
    }

    /// The entries of an index part as `files` wrote it (nil: not one).
    static func read(_ bytes: [UInt8]) -> [String: BoxedEntry]? {
        guard let pages = StoredJSONReader.parse(bytes)?["pages"]?.arrayValue else { return nil }
        var entries: [String: BoxedEntry] = [:]
        entries.reserveCapacity(pages.count)
        for page in pages {
            guard let id = page["id"]?.stringValue, let ttl = page["ttl"]?.intValue,
                let publishedAt = page["published_at"]?.stringValue,
                let changedIn = page["changed_in"]?.stringValue.flatMap(VersionID.init)
            else { continue }
            let listing = Listing(
                title: page["title"]?.stringValue, ttl: ttl, parts: page["parts"]?.intValue ?? 1,
                audiences: page["audiences"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                publishAt: page["publish_at"]?.stringValue)
            let entry = Entry(
                listing: listing, feeds: page["feeds"]?.arrayValue?.compactMap(\.stringValue) ?? [], publishedAt: publishedAt,
                changedIn: changedIn)
            entries[id] = BoxedEntry(entry)
        }
        return entries
    }
}
