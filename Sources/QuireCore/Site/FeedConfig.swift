/// One feed of `site.yaml`'s `feeds:` (README, "Feeds"): which pages belong (an id pattern, tags
/// the pages carry, or both), in which order, and how many cards one part holds.
public struct FeedConfig: Sendable, Hashable {
    public enum Order: String, Sendable, Hashable, CaseIterable {
        case newest, oldest
    }

    public static let pageSizes = 1...500

    public var name: String
    /// `news/*` (one segment), `news/**` (any depth), or a page id; nil: any page with a tag.
    public var pattern: String?
    public var tags: [String] = []
    public var order: Order = .newest
    public var pageSize = 20
    /// Where `site.yaml` names the feed, for what is said of it later (a clash with a page id).
    public var position: SourcePosition

    /// The feed's files: `<locale>/feeds/<name>.json` is the part apps open first.
    public var pageID: String { "feeds/" + name }

    /// Whether a page with `id` and `tags` belongs.
    public func includes(_ id: String, tags pageTags: [String]) -> Bool {
        if let pattern, !Self.matches(id, pattern: pattern) { return false }
        return tags.isEmpty || tags.contains(where: pageTags.contains)
    }

    static func matches(_ id: String, pattern: String) -> Bool {
        if pattern == "**" { return true }
        if pattern == "*" { return !id.contains("/") }
        if pattern.hasSuffix("/**") { return id.hasPrefix(pattern.dropLast(2)) }
        if pattern.hasSuffix("/*") {
            let prefix = pattern.dropLast(1)
            return id.hasPrefix(prefix) && !id.dropFirst(prefix.count).contains("/")
        }
        return id == pattern
    }

    /// `feeds:` of `site.yaml`, in name order.
    static func read(_ node: SourceNode?, reader: inout SourceNodeReader) -> [FeedConfig] {
        guard let members = reader.mapping(node, "feeds") else { return [] }
        var feeds: [FeedConfig] = []
        for member in members {
            let path = "feeds.\(member.key)"
            guard Identifier.isValid(member.key) else {
                reader.error(member.value, path, "'\(member.key)' is not a valid feed name: \(Identifier.rule)")
                continue
            }
            guard let body = reader.mapping(member.value, path) else { continue }
            reader.warnUnknownKeys(body, allowed: ["pages", "tags", "order", "page_size"], keyPath: path, where: "a feed")
            var feed = FeedConfig(name: member.key, position: member.keyPosition)
            let value = member.value
            if let pattern = reader.string(value["pages"], "\(path).pages") {
                if let problem = patternProblem(pattern) {
                    reader.error(value["pages"] ?? value, "\(path).pages", problem)
                } else {
                    feed.pattern = pattern
                }
            }
            feed.tags = reader.stringList(value["tags"], "\(path).tags") ?? []
            if value["pages"] == nil && feed.tags.isEmpty {
                reader.error(value, path, "a feed needs pages: give 'pages' (like \"news/*\") or 'tags', or both")
            }
            if let order = reader.string(value["order"], "\(path).order") {
                if let known = Order(rawValue: order) {
                    feed.order = known
                } else {
                    reader.error(value["order"] ?? value, "\(path).order", "must be 'newest' or 'oldest', found '\(order)'")
                }
            }
            if let size = reader.integer(value["page_size"], "\(path).page_size", minimum: pageSizes.lowerBound) {
                if size <= pageSizes.upperBound {
                    feed.pageSize = size
                } else {
                    reader.error(
                        value["page_size"] ?? value, "\(path).page_size",
                        "must be at most \(pageSizes.upperBound), found \(size): apps load a part at once")
                }
            }
            feeds.append(feed)
        }
        return feeds.sorted { $0.name < $1.name }
    }

    /// Why a `pages:` pattern cannot be used, or nil.
    static func patternProblem(_ pattern: String) -> String? {
        if pattern == "*" || pattern == "**" { return nil }
        var stem = pattern
        if let suffix = ["/**", "/*"].first(where: pattern.hasSuffix) { stem = String(pattern.dropLast(suffix.count)) }
        guard let problem = PageID.checkedProblem(stem) else { return nil }
        return "'\(pattern)' is not a page id pattern (\(problem)): write it like \"news/*\", \"guides/**\" or \"home\""
    }
}
