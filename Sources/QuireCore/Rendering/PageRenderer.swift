public import Foundation
public import QuireModel

/// Turns a validated page into the JSON an app fetches for one locale and one audience:
/// translations merged, markdown pre-rendered, nothing executable, and nothing that changes when
/// only the version changes. Every field keeps the type the app team's spec gives it: a markdown
/// field stays its markdown string, with `<field>_html` and `<field>_blocks` beside it.
///
/// What a lower audience may fetch never holds a higher audience's section: the public file
/// leaves out every section with `visible_to`, and the file of audience A holds the public
/// sections plus those visible to A, in the envelope (`nav`, `header`, `footer`) as in `sections`.
/// Sections whose schedule is not live at `now` are left out of every file.
public struct PageRenderer {
    /// The text of a string in this locale (source or translation).
    public var text: (LocalizableText) -> String
    public var locale: String {
        didSet { direction = TextDirection(locale: locale) }
    }
    /// Published on every part of a right-to-left locale's pages; left-to-right pages say nothing.
    public private(set) var direction: TextDirection
    public var defaultTTL: Int
    /// The time schedules are judged at (one per build).
    public var now: Date
    /// Per section type, the first app version that renders it: published on sections that carry
    /// a `fallback`, so an older app knows to render the fallback instead.
    public var minimumAppVersions: [String: String]
    /// Renders a markdown field's text: `MarkdownRenderer.render`, or a page build's memo of it.
    public var renderMarkdown: (String) -> RenderedMarkdown

    public init(
        locale: String, defaultTTL: Int, now: Date = Date(), minimumAppVersions: [String: String] = [:],
        renderMarkdown: @escaping (String) -> RenderedMarkdown = MarkdownRenderer.render,
        text: @escaping (LocalizableText) -> String
    ) {
        self.locale = locale
        self.direction = TextDirection(locale: locale)
        self.defaultTTL = defaultTTL
        self.now = now
        self.minimumAppVersions = minimumAppVersions
        self.renderMarkdown = renderMarkdown
        self.text = text
    }

    public struct Output {
        /// Part 1 (the whole page when it is not paginated).
        public var page: JSONValue { parts[0] }
        /// Every published part, in order; part n is published at `PageFilePath(..., part: n).path`.
        public var parts: [JSONValue]
        /// What the markdown stage removed as unsafe, with where it was.
        public var removed: [(text: LocalizableText, what: String)]
    }

    /// The audiences that need their own variant of this page (empty: one public file).
    public static func audiences(of page: PageModel) -> [String] {
        var names: [String] = []
        for section in page.allSections { for name in section.visibleTo where !names.contains(name) { names.append(name) } }
        return names
    }

    /// Whether a section goes into the file of `audience` (nil: the public file) at `now`.
    func includes(_ section: SectionModel, audience: String?) -> Bool {
        guard section.schedule.isLive(at: now) else { return false }
        if section.visibleTo.isEmpty { return true }
        guard let audience else { return false }
        return section.visibleTo.contains(audience)
    }

    /// `audience` nil renders the public variant: sections with `visible_to` are left out.
    public func render(_ page: PageModel, audience: String? = nil) -> Output {
        var removed: [(text: LocalizableText, what: String)] = []
        var object = JSONObject()
        object[PageMember.pageID] = .string(page.pageID)
        object[PageMember.locale] = .string(locale)
        if direction == .rtl { object["direction"] = .string(direction.rawValue) }
        if let audience { object[PageMember.audience] = .string(audience) }
        if let redirect = page.redirectTo {
            // A stub at an old id: apps follow it.
            object[PageMember.ttl] = .integer(page.ttl ?? defaultTTL)
            object["redirect_to"] = .string(redirect)
            return Output(parts: [.object(object)], removed: [])
        }
        if let title = page.title { object[PageMember.title] = .string(text(title)) }
        object[PageMember.ttl] = .integer(page.ttl ?? defaultTTL)
        for member in page.extras where member.key != "draft" { object[member.key] = member.value }
        for region in page.regions {
            object[region.name] = .array(render(region.sections, audience: audience, removed: &removed))
        }
        let rendered = render(page.sections, audience: audience, removed: &removed)
        guard let size = page.pageSize, rendered.count > size else {
            object["sections"] = .array(rendered)
            return Output(parts: [.object(object)], removed: removed)
        }
        // Pagination: part 1 carries the envelope, every part links to the next.
        let chunks = stride(from: 0, to: rendered.count, by: size).map { Array(rendered[$0..<min($0 + size, rendered.count)]) }
        let file = PageFilePath(pageID: page.pageID, locale: locale, audience: audience)
        var parts: [JSONValue] = []
        for (index, chunk) in chunks.enumerated() {
            let part = index + 1
            var partObject = part == 1 ? object : JSONObject()
            if part > 1 {
                partObject[PageMember.pageID] = .string(page.pageID)
                partObject[PageMember.locale] = .string(locale)
                if direction == .rtl { partObject["direction"] = .string(direction.rawValue) }
                if let audience { partObject[PageMember.audience] = .string(audience) }
                partObject[PageMember.ttl] = .integer(page.ttl ?? defaultTTL)
            }
            partObject[PageMember.part] = .integer(part)
            partObject[PageMember.parts] = .integer(chunks.count)
            partObject[PageMember.next] = part < chunks.count ? .string(file.part(part + 1).fileName) : .null
            partObject["sections"] = .array(chunk)
            parts.append(.object(partObject))
        }
        return Output(parts: parts, removed: removed)
    }

    /// The sections the file of `audience` includes, rendered, read in place (no filtered copy).
    func render(
        _ sections: [SectionModel], audience: String?, removed: inout [(text: LocalizableText, what: String)]
    ) -> [JSONValue] {
        var rendered: [JSONValue] = []
        rendered.reserveCapacity(sections.count)
        for index in sections.indices where includes(sections[index], audience: audience) {
            rendered.append(render(sections[index], removed: &removed))
        }
        return rendered
    }

    func render(_ section: SectionModel, removed: inout [(text: LocalizableText, what: String)]) -> JSONValue {
        guard section.isKnown else {
            guard case .object(var raw) = section.raw else { return section.raw }
            for key in ["visible_to", "publish_at", "expires_at"] { raw[key] = nil }
            return .object(raw)
        }
        // Members first, one object after: setting keys one by one searches and regrows each time.
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(Self.memberCount(section.fields) + 2)
        members.append(("type", .string(section.type)))
        if let id = section.id { members.append(("id", .string(id))) }
        for field in section.fields { append(field, to: &members, removed: &removed) }
        var object = JSONObject(members: members)
        if object["fallback"] != nil, let version = minimumAppVersions[section.type] {
            object["min_app_version"] = .string(version)
        }
        return .object(object)
    }

    /// A field's published members: one, or for markdown the text and its two rendered forms
    /// (`MarkdownFieldNames`; a vocabulary cannot declare fields of those names).
    func append(
        _ field: FieldEntry, to members: inout [(key: String, value: JSONValue)],
        removed: inout [(text: LocalizableText, what: String)]
    ) {
        guard case .markdown(let string) = field.value else {
            members.append((field.name, render(field.value, removed: &removed)))
            return
        }
        let markdown = text(string)
        let rendered = renderMarkdown(markdown)
        for what in rendered.removed { removed.append((string, what)) }
        members.append((field.name, .string(markdown)))
        members.append((MarkdownFieldNames.html(field.name), .string(rendered.html)))
        members.append((MarkdownFieldNames.blocks(field.name), .encoded(rendered.encodedBlocks)))
    }

    /// How many members `fields` publish: a markdown field is three.
    static func memberCount(_ fields: [FieldEntry]) -> Int {
        var count = 0
        for index in fields.indices {
            if case .markdown = fields[index].value { count += 3 } else { count += 1 }
        }
        return count
    }

    func render(_ value: FieldValue, removed: inout [(text: LocalizableText, what: String)]) -> JSONValue {
        switch value {
        case .plain(let json): return json
        case .text(let string): return .string(text(string))
        // Fields come through `append`, which puts the rendered forms beside the text.
        case .markdown(let string): return .string(text(string))
        case .items(let items):
            return .array(
                items.map { item in
                    var members: [(key: String, value: JSONValue)] = []
                    members.reserveCapacity(Self.memberCount(item))
                    for field in item { append(field, to: &members, removed: &removed) }
                    return .object(JSONObject(members: members))
                })
        case .section(let section): return render(section, removed: &removed)
        }
    }
}

extension PageModel {
    /// Every `publish_at` / `expires_at` of the page and its sections still ahead of `now`.
    public func scheduledChanges(after now: Date) -> [ScheduledChange] { PageTimetable(self).scheduledChanges(after: now) }

    /// Which scheduled parts are live at `now` (`PageTimetable.scheduleState`).
    public func scheduleState(at now: Date) -> String { PageTimetable(self).scheduleState(at: now) }
}
