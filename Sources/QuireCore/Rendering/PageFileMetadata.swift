import QuireModel

/// The members of a published page file that Quire writes and reads back, spelled once: the
/// renderer writes them into the page, the pipeline into the metadata it keeps beside each file.
enum PageMember {
    static let pageID = "page_id"
    static let locale = "locale"
    static let audience = "audience"
    static let ttl = "ttl"
    static let title = "title"
    static let part = "part"
    static let parts = "parts"
    static let next = "next"
    /// A feed's file, in place of `page_id`.
    static let feed = "feed"
}

/// What the metadata beside an output file says: which page, locale and audience it is, its
/// TTL, and which part of how many. The page index, the cache headers, carrying and the status
/// report read it instead of the file.
struct OutputMetadata {
    let json: JSONValue?

    init(_ json: JSONValue?) { self.json = json }

    /// The metadata of a page file: a part's number and count only when the page is in parts.
    /// `listed`: what the page index lists of the page (`PageIndexFiles.metadata`), on the file
    /// it lists. The members are put in one array of the room they take: a watcher holds this
    /// object for every page file (300,000 at 100,000 pages), and grown one by one it had room
    /// for eight.
    static func pageFile(_ file: PageFilePath, ttl: Int, parts: Int, listed: [(String, JSONValue)] = []) -> JSONObject {
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(4 + (parts > 1 ? 2 : 0) + listed.count)
        members += [
            (PageMember.pageID, .string(file.pageID)), (PageMember.locale, .string(file.locale)), (PageMember.ttl, .integer(ttl)),
            (PageMember.audience, file.audience.map(JSONValue.string) ?? .null),
        ]
        if parts > 1 { members += [(PageMember.part, .integer(file.part)), (PageMember.parts, .integer(parts))] }
        for (key, value) in listed { members.append((key, value)) }
        return JSONObject(members: members)
    }

    var pageID: String? { json?[PageMember.pageID]?.stringValue }
    var locale: String? { json?[PageMember.locale]?.stringValue }
    /// Nil: the public variant.
    var audience: String? { json?[PageMember.audience]?.stringValue }
    var ttl: Int? { json?[PageMember.ttl]?.intValue }
    var title: String? { json?[PageMember.title]?.stringValue }
    var feed: String? { json?[PageMember.feed]?.stringValue }
    /// 1 when the page is not in parts.
    var part: Int { json?[PageMember.part]?.intValue ?? 1 }
    var parts: Int { json?[PageMember.parts]?.intValue ?? 1 }
}
