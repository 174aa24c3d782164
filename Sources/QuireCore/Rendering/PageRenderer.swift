public import QuireModel

/// Turns a validated page into the JSON an app fetches for one locale and one audience:
/// translations merged, markdown pre-rendered (`{"markdown", "html", "blocks"}`), nothing
/// executable, and nothing that changes when only the version changes.
public struct PageRenderer {
    /// The text of a string in this locale (source or translation).
    public var text: (LocalizableText) -> String
    public var locale: String
    public var defaultTTL: Int

    public init(locale: String, defaultTTL: Int, text: @escaping (LocalizableText) -> String) {
        self.locale = locale
        self.defaultTTL = defaultTTL
        self.text = text
    }

    public struct Output {
        public var page: JSONValue
        /// What the markdown stage removed as unsafe, with where it was.
        public var removed: [(text: LocalizableText, what: String)]
    }

    /// The audiences that need their own variant of this page (empty: one public file).
    public static func audiences(of page: PageModel) -> [String] {
        var names: [String] = []
        for section in page.sections { for name in section.visibleTo where !names.contains(name) { names.append(name) } }
        return names
    }

    /// `audience` nil renders the public variant: sections with `visible_to` are left out.
    public func render(_ page: PageModel, audience: String? = nil) -> Output {
        var removed: [(text: LocalizableText, what: String)] = []
        var object = JSONObject()
        object["page_id"] = .string(page.pageID)
        object["locale"] = .string(locale)
        if let audience { object["audience"] = .string(audience) }
        if let title = page.title { object["title"] = .string(text(title)) }
        object["ttl"] = .integer(page.ttl ?? defaultTTL)
        for member in page.extras { object[member.key] = member.value }
        let visible = page.sections.filter { $0.visibleTo.isEmpty || (audience.map($0.visibleTo.contains) ?? false) }
        object["sections"] = .array(visible.map { render($0, removed: &removed) })
        return Output(page: .object(object), removed: removed)
    }

    func render(_ section: SectionModel, removed: inout [(text: LocalizableText, what: String)]) -> JSONValue {
        guard section.isKnown else {
            guard case .object(var raw) = section.raw else { return section.raw }
            raw["visible_to"] = nil
            return .object(raw)
        }
        var object = JSONObject()
        object["type"] = .string(section.type)
        if let id = section.id { object["id"] = .string(id) }
        for field in section.fields { object[field.name] = render(field.value, removed: &removed) }
        return .object(object)
    }

    func render(_ value: FieldValue, removed: inout [(text: LocalizableText, what: String)]) -> JSONValue {
        switch value {
        case .plain(let json): return json
        case .text(let string): return .string(text(string))
        case .markdown(let string):
            let markdown = text(string)
            let rendered = MarkdownRenderer.render(markdown)
            for what in rendered.removed { removed.append((string, what)) }
            return ["markdown": .string(markdown), "html": .string(rendered.html), "blocks": rendered.blocks]
        case .items(let items):
            return .array(items.map { item in
                .object(JSONObject(item.map { ($0.name, render($0.value, removed: &removed)) }))
            })
        case .section(let section): return render(section, removed: &removed)
        }
    }
}
