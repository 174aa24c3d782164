import Foundation
public import QuireModel

/// What validation checks a page against, besides the page itself.
public struct ValidationContext: Sendable {
    public var config: SiteConfig
    public var vocabulary: Vocabulary
    /// Every page id of the site, for `navigate` destinations.
    public var pageIDs: Set<String>
    /// Paths under the site's `assets/` folder, relative to it (`trex-banner.jpg`).
    public var assets: Set<String>
    /// The drill ids of the site's drill catalog (`drill_catalog` in site.yaml); nil when it has none.
    public var drillIDs: Set<String>?

    public init(config: SiteConfig, vocabulary: Vocabulary, pageIDs: Set<String>, assets: Set<String>, drillIDs: Set<String>? = nil) {
        self.config = config
        self.vocabulary = vocabulary
        self.pageIDs = pageIDs
        self.assets = assets
        self.drillIDs = drillIDs
    }
}

/// Checks one parsed page source against the vocabulary and the site, and builds its `PageModel`.
/// Every problem is a positioned diagnostic with the key path; the page is usable only when
/// there are no errors.
public struct PageValidator {
    static let pageKeys = PageEnvelope.pageKeys

    let context: ValidationContext
    let pageID: String
    var reader: SourceNodeReader
    /// Every page id this page asked the site about (`redirect_to`, `navigate` destinations),
    /// found or not: adding or removing one of them changes what this page validates or previews to.
    var linkedPageIDs: Set<String> = []

    public init(context: ValidationContext, pageID: String, file: String) {
        self.context = context
        self.pageID = pageID
        self.reader = SourceNodeReader(file: file)
    }

    public static func validate(_ root: SourceNode, pageID: String, file: String, context: ValidationContext) -> (PageModel?, [Diagnostic])
    {
        let validated = validateLinks(root, pageID: pageID, file: file, context: context)
        return (validated.model, validated.diagnostics)
    }

    /// `validate`, and the page ids the page looked up (`linkedPageIDs`).
    static func validateLinks(
        _ root: SourceNode, pageID: String, file: String,
        context: ValidationContext
    ) -> (model: PageModel?, diagnostics: [Diagnostic], linkedPageIDs: Set<String>) {
        var validator = PageValidator(context: context, pageID: pageID, file: file)
        let page = validator.page(root)
        let diagnostics = validator.reader.diagnostics
        return (diagnostics.hasErrors ? nil : page, diagnostics, validator.linkedPageIDs)
    }

    /// Whether `id` is a page of the site, remembered in `linkedPageIDs`.
    mutating func isPage(_ id: String) -> Bool {
        linkedPageIDs.insert(id)
        return context.pageIDs.contains(id)
    }

    mutating func page(_ root: SourceNode) -> PageModel? {
        guard let members = root.members else {
            reader.error(root, "", "a page must be a mapping with 'sections', found \(root.kindDescription)")
            return nil
        }
        reader.warnUnknownKeys(members, allowed: Self.pageKeys, keyPath: "", where: "a page")
        if let declared = reader.string(root["page_id"], "page_id"), declared != pageID, let node = root["page_id"] {
            reader.error(
                node, "page_id",
                "'\(declared)' does not match the page id '\(pageID)' given by the file's path: rename the file or fix page_id")
        }
        var title: LocalizableText?
        if let node = root["title"], let text = reader.string(node, "title") {
            title = LocalizableText(
                key: "title", keyPath: "title", text: text, position: node.position, translatable: true, isMarkdown: false)
        }
        let ttl = reader.integer(root["ttl"], "ttl")
        var extras = JSONObject()
        if let node = root["draft"], let draft = reader.bool(node, "draft") { extras["draft"] = .bool(draft) }
        if let node = root["refresh"], let refresh = refreshPolicy(node) { extras["refresh"] = refresh }
        let pageSize = reader.integer(root["page_size"], "page_size", minimum: 1)
        let schedule = self.schedule(root, keyPath: "")
        let redirectTo = redirect(root["redirect_to"])
        var sections: [SectionModel] = []
        if let node = root["sections"] {
            sections = sectionList(node, keyPath: "sections", keyPrefix: nil)
        } else if redirectTo == nil {
            reader.error(root, "", "a page needs 'sections' (a list of sections)")
        }
        var regions: [PageRegion] = []
        for name in PageRegion.names {
            guard let node = root[name] else { continue }
            regions.append(PageRegion(name: name, sections: sectionList(node, keyPath: name, keyPrefix: name)))
        }
        var model = PageModel(pageID: pageID, file: reader.file, title: title, ttl: ttl, sections: sections, extras: extras)
        model.regions = regions
        model.pageSize = pageSize
        model.schedule = schedule
        model.redirectTo = redirectTo
        return model
    }

    /// `sections`, or one of the envelope's lists: `keyPrefix` namespaces its translation keys
    /// (`header.<id>.title`).
    mutating func sectionList(_ node: SourceNode, keyPath: String, keyPrefix: String?) -> [SectionModel] {
        guard let items = node.array else {
            reader.error(node, keyPath, "must be a list of sections, found \(node.kindDescription)")
            return []
        }
        if items.count > context.config.limits.maxSections {
            reader.error(
                node, keyPath,
                "has \(items.count) sections, over the limit of \(context.config.limits.maxSections) (limits.max_sections in site.yaml)")
        }
        var sections: [SectionModel] = []
        sections.reserveCapacity(min(items.count, context.config.limits.maxSections))
        var seenIDs: [String: SourcePosition] = [:]
        for (index, item) in items.prefix(context.config.limits.maxSections).enumerated() {
            if let section = section(item, keyPath: "\(keyPath)[\(index)]", index: index, seenIDs: &seenIDs, keyPrefix: keyPrefix) {
                sections.append(section)
            }
        }
        return sections
    }

    /// `refresh: {interval: seconds, on_appear: bool}`: when apps fetch the page again.
    mutating func refreshPolicy(_ node: SourceNode) -> JSONValue? {
        guard let members = reader.mapping(node, "refresh") else { return nil }
        reader.warnUnknownKeys(members, allowed: ["interval", "on_appear"], keyPath: "refresh", where: "refresh")
        var policy = JSONObject()
        if let interval = reader.integer(node["interval"], "refresh.interval", minimum: 1) { policy["interval"] = .integer(interval) }
        if let onAppear = reader.bool(node["on_appear"], "refresh.on_appear") { policy["on_appear"] = .bool(onAppear) }
        if members.isEmpty { reader.error(node, "refresh", "is empty: give 'interval' (seconds) and/or 'on_appear' (true or false)") }
        return .object(policy)
    }

    /// `redirect_to` names another page of the site (a page id, optionally with a leading '/').
    mutating func redirect(_ node: SourceNode?) -> String? {
        guard let node, let text = reader.string(node, "redirect_to") else { return nil }
        let target = text.hasPrefix("/") ? String(text.dropFirst()) : text
        if target == pageID {
            reader.error(node, "redirect_to", "'\(text)' is this page itself: name the page it moved to")
        } else if !isPage(target) {
            reader.error(node, "redirect_to", "'\(text)' is not a page of this site: name the page id it moved to")
        }
        return target
    }

    /// `publish_at` and `expires_at` (ISO 8601) of a page or section.
    static let scheduleKeys = ["publish_at", "expires_at"]

    mutating func schedule(_ node: SourceNode, keyPath: String) -> Schedule {
        var schedule = Schedule()
        for key in Self.scheduleKeys {  // one array for every section, not one each
            guard let value = node[key] else { continue }
            let path = keyPath.isEmpty ? key : "\(keyPath).\(key)"
            guard let text = reader.string(value, path) else { continue }
            guard let date = ScheduleDate.parse(text) else {
                reader.error(
                    value, path, "'\(text)' is not an ISO 8601 time: write it like 2025-12-01T09:00:00Z or 2025-12-01T09:00:00+01:00")
                continue
            }
            if key == "publish_at" { schedule.publishAt = date } else { schedule.expiresAt = date }
        }
        if let publishAt = schedule.publishAt, let expiresAt = schedule.expiresAt, expiresAt <= publishAt, let value = node["expires_at"] {
            reader.error(
                value, keyPath.isEmpty ? "expires_at" : "\(keyPath).expires_at", "is not after publish_at: the content would never be live")
        }
        return schedule
    }

    mutating func section(
        _ node: SourceNode, keyPath: String, index: Int, seenIDs: inout [String: SourcePosition],
        keyPrefix: String? = nil, isFallback: Bool = false
    ) -> SectionModel? {
        guard let members = node.members else {
            reader.error(node, keyPath, "a section must be a mapping with a 'type', found \(node.kindDescription)")
            return nil
        }
        guard let typeNode = node["type"] else {
            reader.error(node, keyPath, "a section needs a 'type' (one of \(context.vocabulary.types.map(\.name).joined(separator: ", ")))")
            return nil
        }
        guard let type = reader.string(typeNode, "\(keyPath).type") else { return nil }
        var id: String?
        if let idNode = node["id"], let text = reader.string(idNode, "\(keyPath).id") {
            if !Identifier.isValid(text) {
                reader.error(idNode, "\(keyPath).id", "'\(text)' is not a valid section id: \(Identifier.rule)")
            } else if let first = seenIDs[text] {
                reader.error(
                    idNode, "\(keyPath).id",
                    "duplicate section id '\(text)' (first used at line \(first.line)): section ids must be unique in a page")
            } else {
                seenIDs[text] = idNode.position
            }
            id = text
        }
        let visibleTo = audiences(node["visible_to"], keyPath: "\(keyPath).visible_to")
        let schedule = self.schedule(node, keyPath: keyPath)
        guard let spec = context.vocabulary[type] else {
            reader.warning(
                typeNode, "\(keyPath).type",
                "unknown section type '\(type)': published unchanged; apps that cannot render it skip it")
            var unknown = SectionModel(type: type, id: id, isKnown: false, fields: [], raw: node.json, visibleTo: visibleTo)
            unknown.schedule = schedule
            return unknown
        }
        let base = keyPrefix.map { prefix in id.map { "\(prefix).\($0)" } ?? "\(prefix)[\(index)]" } ?? id ?? "sections[\(index)]"
        // Keys are checked against the spec in place: the union is built only for a message.
        let fieldSpecs = spec.fields
        reader.warnUnknownKeys(
            members, isAllowed: { key in fieldSpecs.contains { $0.name == key } || Vocabulary.commonSectionKeys.contains(key) },
            allowed: { Vocabulary.commonSectionKeys.union(fieldSpecs.map(\.name)) }, keyPath: keyPath, where: "a \(type) section")
        var fields = self.fields(node, specs: spec.fields, keyPath: keyPath, translationBase: base)
        if let fallbackNode = node["fallback"] {
            var fallbackIDs: [String: SourcePosition] = [:]
            if fallbackNode["fallback"] != nil {
                reader.error(fallbackNode, "\(keyPath).fallback", "a fallback section cannot have a fallback of its own")
            }
            for key in ["visible_to", "publish_at", "expires_at"] where fallbackNode[key] != nil {
                reader.error(
                    fallbackNode[key] ?? fallbackNode, "\(keyPath).fallback.\(key)",
                    "a fallback section takes its parent's '\(key)': move it to the parent section")
            }
            if var fallback = section(
                fallbackNode, keyPath: "\(keyPath).fallback", index: index, seenIDs: &fallbackIDs, keyPrefix: keyPrefix, isFallback: true)
            {
                if fallback.id == nil { fallback = Self.rekey(fallback, base: "\(base).fallback") }
                fields.append(FieldEntry(name: "fallback", value: .section(fallback)))
            }
        }
        if id == nil, !isFallback, !fields.isEmpty, context.config.locales.count > 1,
            spec.fields.contains(where: \.translatable)
        {
            reader.warning(
                node, keyPath,
                "this section has no 'id': its translations are keyed by position (\(base)) and break when sections move; give it an id")
        }
        // Only an unknown type is published from `raw`: a known one is published from its fields.
        var model = SectionModel(type: type, id: id, isKnown: true, fields: fields, raw: .null, visibleTo: visibleTo)
        model.schedule = schedule
        return model
    }

    /// A fallback section without an id gets keys under its parent's.
    static func rekey(_ section: SectionModel, base: String) -> SectionModel {
        var copy = section
        copy.fields = section.fields.map { FieldEntry(name: $0.name, value: rekey($0.value, from: "sections", to: base)) }
        return copy
    }

    static func rekey(_ value: FieldValue, from old: String, to new: String) -> FieldValue {
        func move(_ text: LocalizableText) -> LocalizableText {
            var copy = text
            if let dot = text.key.firstIndex(of: ".") { copy.key = new + text.key[dot...] }
            return copy
        }
        switch value {
        case .plain: return value
        case .text(let text): return .text(move(text))
        case .markdown(let text): return .markdown(move(text))
        case .items(let items):
            return .items(items.map { $0.map { FieldEntry(name: $0.name, value: rekey($0.value, from: old, to: new)) } })
        case .section: return value
        }
    }

    mutating func audiences(_ node: SourceNode?, keyPath: @autoclosure () -> String) -> [String] {
        guard let node else { return [] }
        let names: [String]
        if let single = node.string { names = [single] } else { names = reader.stringList(node, keyPath()) ?? [] }
        for name in names where !context.config.audiences.contains(name) {
            let declared =
                context.config.audiences.isEmpty ? "none are declared" : "declared: \(context.config.audiences.joined(separator: ", "))"
            reader.error(node, keyPath(), "'\(name)' is not an audience of this site (\(declared) under 'audiences' in site.yaml)")
        }
        return names
    }
}
