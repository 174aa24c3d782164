import QuireModel

/// The feeds of `site.yaml` (`FeedConfig`), each published in every locale as a page apps render
/// as they render any page: `<locale>/feeds/<name>.json` and its parts, one `page_link` card a
/// listed page (with a `cta_button` fallback for apps that do not know the type).
///
/// Parts are numbered from the oldest entry, as RFC 5005's paged archives are: part k holds
/// entries (k-1)·size+1 ... k·size, oldest first, so every part but the newest keeps its
/// entries however long the feed grows, and a new entry rewrites at most two files. With `order:
/// newest` apps open the newest part (`<name>.json`), whose `next` is the part before
/// (`<name>.<k>.json`), down to part 1; with `oldest`, part 1 (`<name>.json`), whose `next` is
/// part 2, and so on. No part says how many there are: that would change every part.
///
/// Made from the page index's entries (`PageIndexFiles`), kept page by page by the delta path:
/// an entry that changes in place rewrites its part; one that comes, goes or moves rewrites the
/// parts from its position on.
struct FeedFiles: Sendable {
    /// A card and where it sorts: by the page's `published_at`, then its id.
    private struct Card: Sendable {
        var date: String
        var id: String
        /// The page's entry in the index, shared with it: the card's bytes are made from it when
        /// its part is written, not kept (a watcher held 135 MB of them for a feed of 100,000
        /// pages in three locales).
        var entry: PageIndexFiles.BoxedEntry
        func precedes(_ date: String, _ id: String) -> Bool { (self.date, self.id) < (date, id) }
        var bytes: [UInt8] { FeedFiles.card(id, entry.entry) }
    }

    /// One feed in one locale, oldest entry first.
    private struct List: Sendable {
        var cards: [Card] = []
        var dateOf: [String: String] = [:]
        /// Parts (1-based) to render again.
        var dirty = Set<Int>()

        func position(_ date: String, _ id: String) -> Int {
            var (low, high) = (0, cards.count)
            while low < high {
                let middle = (low + high) / 2
                if cards[middle].precedes(date, id) { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    let feeds: [FeedConfig]
    let locales: [String]
    let ttl: Int
    /// By feed name, then locale.
    private var lists: [String: [String: List]] = [:]
    private var published = PublishedDigests()

    init(feeds: [FeedConfig], locales: [String], ttl: Int) {
        self.feeds = feeds
        self.locales = locales
        self.ttl = ttl
        for feed in feeds { lists[feed.name] = Dictionary(uniqueKeysWithValues: locales.map { ($0, List()) }) }
    }

    static func path(feed: String, locale: String, file: Int? = nil) -> String {
        "\(locale)/feeds/\(feed)\(file.map { ".\($0)" } ?? "").json"
    }

    /// The file part `part` of `parts` of `feed` is published as in `locale`.
    static func path(feed: FeedConfig, locale: String, part: Int, of parts: Int) -> String {
        path(feed: feed.name, locale: locale, file: file(part: part, of: parts, order: feed.order).file)
    }

    /// Sets one page's cards from its index entries by locale (none: the page is in no feed).
    mutating func set(_ pageID: String, entries: [String: PageIndexFiles.BoxedEntry]) {
        for feed in feeds {
            for locale in locales {
                let entry = entries[locale].flatMap { $0.entry.feeds.contains(feed.name) ? $0 : nil }
                guard lists[feed.name]?[locale] != nil else { continue }
                // In place: a copy of the list would copy every card.
                Self.set(pageID, entry: entry, in: &lists[feed.name]![locale]!, size: feed.pageSize)
            }
        }
    }

    /// Sets every page's cards from the index at once (a full build, into empty lists): each
    /// list is sorted once, where setting pages one by one moves every card after each one's
    /// place (a feed of 100,000 pages took ten seconds). A list a core. No part is marked: the
    /// first round after it (`files(base:)`) writes them all.
    mutating func setEvery(from index: PageIndexFiles) {
        let lists = feeds.flatMap { feed in locales.map { (feed: feed, locale: $0) } }
        let made = ResultSlots<List>(count: lists.count)
        WideConcurrentPerform.run(iterations: lists.count) { position in
            let (feed, locale) = lists[position]
            var list = List()
            for (pageID, boxed) in index.entries(in: locale) where boxed.entry.feeds.contains(feed.name) {
                list.cards.append(Card(date: boxed.entry.publishedAt, id: pageID, entry: boxed))
            }
            list.cards.sort { $0.precedes($1.date, $1.id) }
            list.dateOf = Dictionary(uniqueKeysWithValues: list.cards.map { ($0.id, $0.date) })
            made.set(position, list)
        }
        for ((feed, locale), list) in zip(lists, made.values) { self.lists[feed.name]?[locale] = list }
    }

    private static func set(_ pageID: String, entry: PageIndexFiles.BoxedEntry?, in list: inout List, size: Int) {
        let partsBefore = parts(list.cards.count, size: size)
        var from: Int?
        if let date = list.dateOf[pageID] {
            let old = list.position(date, pageID)
            if let entry, entry.entry.publishedAt == date {
                // In place: only its part, and only if its card changed.
                if list.cards[old].bytes != card(pageID, entry.entry) { list.dirty.insert(old / size + 1) }
                list.cards[old].entry = entry
                return
            }
            list.cards.remove(at: old)
            list.dateOf[pageID] = nil
            from = old
        }
        if let entry {
            let new = list.position(entry.entry.publishedAt, pageID)
            list.cards.insert(Card(date: entry.entry.publishedAt, id: pageID, entry: entry), at: new)
            list.dateOf[pageID] = entry.entry.publishedAt
            from = min(from ?? new, new)
        }
        guard let from else { return }
        let partsAfter = parts(list.cards.count, size: size)
        // Every entry from `from` on moved; a part that came or went changes the links around it.
        list.dirty.formUnion((from / size + 1)...max(partsBefore, partsAfter))
        list.dirty.formUnion([partsBefore, partsAfter])
    }

    /// Each feed's preview in each locale (`preview/<locale>/feeds/<name>.html`): the shell every
    /// page's preview is, which draws the feed's parts as cards linking to the pages' previews.
    func previewShells(site: String, published: [String: PublishedFile]) -> [OutputFile] {
        let digest = PagePreview.shellDigest(site: site, source: .published)
        return feeds.flatMap { feed in
            locales.map { locale in
                let path = OutputPath.preview(pageID: feed.pageID, locale: locale)
                if published[path]?.inputDigest == digest { return OutputFile(path: path, content: .carried, inputDigest: digest) }
                return OutputFile(
                    path: path, content: .bytes(PagePreview.shell(site: site, pageID: feed.pageID, source: .published)),
                    inputDigest: digest)
            }
        }
    }

    /// Each feed's length and newest entry in `locale`, as the status lists them.
    func summary(locale: String) -> [JSONValue] {
        feeds.map { feed in
            let cards = lists[feed.name]?[locale]?.cards ?? []
            let newest: JSONValue = cards.last.map { ["page_id": .string($0.id), "date": .string($0.date)] } ?? .null
            return ["name": .string(feed.name), "entries": .integer(cards.count), "newest": newest]
        }
    }

    static func parts(_ count: Int, size: Int) -> Int { max(1, (count + size - 1) / size) }

    /// The file part `part` of `parts` is published at, and the part its `next` names.
    static func file(part: Int, of parts: Int, order: FeedConfig.Order) -> (file: Int?, next: Int?) {
        switch order {
        case .newest: return (part == parts ? nil : part, part > 1 ? part - 1 : nil)
        case .oldest: return (part == 1 ? nil : part, part < parts ? part + 1 : nil)
        }
    }

    /// The feed files that changed since the last call (every file on the first), and the
    /// paths of parts that are gone. `base`: the newest version's files, for a first call.
    mutating func files(base: [String: PublishedFile]? = nil) -> (files: [OutputFile], removed: [String]) {
        var made: [PublishedDigests.Made] = []
        var layout: [String: Int] = [:]
        let everything = base != nil
        for feed in feeds {
            for locale in locales {
                guard var list = lists[feed.name]?[locale] else { continue }
                let parts = Self.parts(list.cards.count, size: feed.pageSize)
                layout[Self.path(feed: feed.name, locale: locale)] = parts
                // A dirty part past the last one is one that went.
                let written = everything ? Array(1...parts) : list.dirty.filter({ $0 <= parts }).sorted()
                list.dirty = []
                lists[feed.name]?[locale] = list
                let (cards, ttl) = (list.cards, ttl)
                for part in written {
                    let path = Self.path(feed: feed, locale: locale, part: part, of: parts)
                    let metadata: JSONValue = ["feed": .string(feed.name), "locale": .string(locale), "ttl": .integer(ttl)]
                    made.append((path, metadata, { Self.render(feed, locale: locale, part: part, of: parts, cards: cards, ttl: ttl) }))
                }
            }
        }
        let files = published.files(made, base: base)
        let removed = published.removed(layout: layout, listingAll: everything) {
            var current = Set<String>()
            for feed in feeds where lists[feed.name] != nil {
                for locale in locales {
                    guard let parts = layout[Self.path(feed: feed.name, locale: locale)] else { continue }
                    for part in 1...parts {
                        current.insert(Self.path(feed: feed, locale: locale, part: part, of: parts))
                    }
                }
            }
            return current
        }
        return (files, removed)
    }

    private static func render(_ feed: FeedConfig, locale: String, part: Int, of parts: Int, cards: [Card], ttl: Int) -> [UInt8] {
        let next = file(part: part, of: parts, order: feed.order).next.map {
            feed.name + "." + String($0) + ".json"
        }
        let header: JSONObject = [
            PageMember.pageID: .string(feed.pageID), PageMember.locale: .string(locale), PageMember.ttl: .integer(ttl),
            PageMember.feed: ["name": .string(feed.name), "order": .string(feed.order.rawValue)],
            PageMember.part: .integer(part),
            // Part 1 of `newest` is published at `<name>.1.json`; its `next` ends the walk.
            PageMember.next: next.map(JSONValue.string) ?? .null,
        ]
        var bytes = JSONWriter(pretty: false).bytes(.object(header))
        bytes.removeLast()
        bytes += ",\"sections\":[".utf8
        let start = (part - 1) * feed.pageSize
        let slice = cards[min(start, cards.count)..<min(start + feed.pageSize, cards.count)]
        let ordered: [Card] = feed.order == .newest ? slice.reversed() : Array(slice)
        for (index, card) in ordered.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += card.bytes
        }
        bytes += "]}".utf8
        return bytes
    }

    // MARK: The restart file

    /// The digests of the files last made: the lists are made again from the page index.
    func write(to writer: inout BinaryWriter) { published.write(to: &writer) }

    /// The feeds a watcher kept, for the same feeds, locales and TTL: the lists made again from
    /// `index`, the page index they were made from (restored from the same file), with nothing
    /// to write.
    init(feeds: [FeedConfig], locales: [String], ttl: Int, index: PageIndexFiles, reading reader: inout BinaryReader)
        throws(BinaryReader.Malformed)
    {
        self.init(feeds: feeds, locales: locales, ttl: ttl)
        setEvery(from: index)
        published = try PublishedDigests(reading: &reader)
    }

    static let pageLinkVersion = Vocabulary.builtIn.types.first { $0.name == "page_link" }?.minimumAppVersion

    /// A page's `page_link` card, with a `cta_button` to the page for apps that do not know the type.
    static func card(_ pageID: String, _ entry: PageIndexFiles.Entry) -> [UInt8] {
        let title = entry.listing.title ?? pageID
        var object: JSONObject = ["type": "page_link", "page_id": .string(pageID), "title": .string(title)]
        if let summary = entry.listing.summary { object["summary"] = .string(summary) }
        if let image = entry.listing.imageURL { object["image_url"] = .string(image) }
        object["date"] = .string(entry.publishedAt)
        object["fallback"] = [
            "type": "cta_button", "label": .string(title), "action": "navigate", "destination": .string("/" + pageID),
        ]
        if let version = Self.pageLinkVersion { object["min_app_version"] = .string(version) }
        return JSONWriter(pretty: false).bytes(.object(object))
    }
}
