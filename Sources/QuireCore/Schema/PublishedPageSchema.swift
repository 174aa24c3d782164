public import QuireModel

/// A JSON Schema (draft 2020-12) of what apps receive: a published page (`PageRenderer`'s output,
/// every part and audience variant) or a redirect stub, generated from the vocabulary so app teams
/// (Kotlin, Rust, Swift) can generate decoders from it instead of reading Swift.
///
/// Objects are left open on purpose: a later format may add members, and a decoder generated
/// with "no unknown members" would break on them. A section of a type the vocabulary does not know
/// is an open object with a `type`. tests/e2e/published-schema.sh validates every published page
/// against this schema and against a copy with every object closed, so a member Quire publishes
/// without declaring it here fails the tests.
public enum PublishedPageSchema {
    public static func make(vocabulary: Vocabulary, config: SiteConfig? = nil) -> JSONValue {
        var definitions = JSONObject()
        definitions["page"] = page(config: config)
        definitions["redirect"] = redirect(config: config)
        definitions["refresh"] = PageSchema.refresh
        definitions["section_list"] = ["type": "array", "items": ["$ref": "#/$defs/section"]]
        definitions["section"] = section(vocabulary)
        definitions["other_section"] = other("section", vocabulary.types.map(\.name))
        for type in vocabulary.types { definitions["section_\(type.name)"] = sectionSchema(type) }
        for (name, schema) in MarkdownTreeSchema.definitions { definitions[name] = schema }
        let root: JSONObject = JSONObject([
            ("$schema", "https://json-schema.org/draft/2020-12/schema"),
            ("$id", .string("https://quire.invalid/schema/\(config.map { "\($0.name)." } ?? "")published-page.schema.json")),
            ("title", "Quire published page"),
            (
                "description",
                .string(
                    "What apps fetch from dist/<site>/current/<locale>/<page_id>[.<part>][@<audience>].json "
                        + "(manifest format \(VersionManifest.format)): a page, one part of a paginated page, "
                        + "or a redirect stub. Members may be added in later formats: ignore unknown members, "
                        + "and skip sections of types the app does not know.")
            ),
            ("oneOf", [["$ref": "#/$defs/page"], ["$ref": "#/$defs/redirect"]]),
            ("$defs", .object(definitions)),
        ])
        return .object(root)
    }

    /// The members every published file starts with: which page, locale and variant it is.
    static func identity(config: SiteConfig?) -> [(String, JSONValue)] {
        var locale: JSONObject = ["type": "string", "description": "The locale of this file's text."]
        if let config { locale["enum"] = .array(config.locales.map { .string($0) }) }
        var audience: JSONObject = ["type": "string", "description": "Only in an audience's variant (page@audience.json)."]
        if let config { audience["enum"] = .array(config.audiences.map { .string($0) }) }
        return [
            ("page_id", PageSchema.pageID),
            ("locale", .object(locale)),
            ("direction", ["enum": ["ltr", "rtl"], "description": "Published for right-to-left locales; absent means ltr."]),
            ("audience", .object(audience)),
            ("ttl", ["type": "integer", "minimum": 0, "description": "Seconds apps and caches may keep the page."]),
        ]
    }

    static func page(config: SiteConfig?) -> JSONValue {
        let sectionList: JSONValue = ["$ref": "#/$defs/section_list"]
        let properties = JSONObject(
            identity(config: config) + [
                ("title", ["type": "string"]),
                ("refresh", ["$ref": "#/$defs/refresh"]),
                ("nav", sectionList),
                ("header", sectionList),
                ("footer", sectionList),
                (
                    "part",
                    [
                        "type": "integer", "minimum": 1,
                        "description":
                            "Paginated pages: this part's number (1 is the plain path; a feed's parts count from its oldest entry).",
                    ]
                ),
                (
                    "parts",
                    ["type": "integer", "minimum": 1, "description": "Paginated pages: how many parts there are (not on a feed's parts)."]
                ),
                (
                    "next",
                    [
                        "type": ["string", "null"],
                        "description": "Paginated pages: the next part's file name, relative to this one; null on the last.",
                    ]
                ),
                ("feed", feed),
                ("sections", sectionList),
            ])
        return [
            "type": "object",
            "description": "A page, or one part of it: title, refresh, nav, header and footer only on part 1.",
            "properties": .object(properties),
            "required": ["page_id", "locale", "ttl", "sections"],
            "dependentRequired": ["part": ["next"], "parts": ["part", "next"], "next": ["part"], "feed": ["part", "next"]],
        ]
    }

    /// A feed's part (`FeedFiles`): which feed, and in which order its parts link.
    static let feed: JSONValue = [
        "type": "object",
        "description": "Only on a feed's parts (<locale>/feeds/<name>[.<part>].json): its sections are page_link cards.",
        "properties": [
            "name": ["type": "string"],
            "order": [
                "enum": ["newest", "oldest"],
                "description": "newest: the plain path is the newest part and next goes back in time; oldest: it is part 1.",
            ],
        ],
        "required": ["name", "order"],
    ]

    static func redirect(config: SiteConfig?) -> JSONValue {
        let properties = JSONObject(
            identity(config: config) + [
                ("redirect_to", described(PageSchema.pageID, "The page apps load instead."))
            ])
        return [
            "type": "object",
            "description": "A stub at a page's old id.",
            "properties": .object(properties),
            "required": ["page_id", "locale", "ttl", "redirect_to"],
        ]
    }

    /// Any section: a known type is checked by its own schema; an unknown one is an open object.
    static func section(_ vocabulary: Vocabulary) -> JSONValue {
        union(
            "section", vocabulary.types.map(\.name),
            "A section. Types not listed here may appear (published unchanged): apps skip what they cannot render.")
    }

    /// A discriminated union, as code generators read one: each known type's schema (its `type` a
    /// `const`), or `other_<kind>`, an open object whose `type` is none of them. Exactly one branch
    /// fits any node, so validation is as strict as checking the known types by their `type`.
    static func union(_ kind: String, _ names: [String], _ description: String) -> JSONValue {
        [
            "description": .string(description),
            "oneOf": .array(names.map { ["$ref": .string("#/$defs/\(kind)_\($0)")] } + [["$ref": .string("#/$defs/other_\(kind)")]]),
        ]
    }

    /// The open branch of `union`: any other type, with any members.
    static func other(_ kind: String, _ names: [String]) -> JSONValue {
        [
            "type": "object",
            "description": .string("A \(kind) of a type this schema does not list: apps skip it."),
            "required": ["type"],
            "properties": ["type": ["type": "string", "not": ["enum": .array(names.map(JSONValue.string))]]],
            // Said, not left to the default: generated models then keep the members they do not name.
            "additionalProperties": true,
        ]
    }

    static func sectionSchema(_ type: SectionTypeSpec) -> JSONValue {
        var properties = JSONObject()
        properties["type"] = ["const": .string(type.name)]
        properties["id"] = PageSchema.identifier
        var required = ["type"]
        var dependencies = JSONObject()
        add(type.fields, to: &properties, required: &required, dependencies: &dependencies)
        // A fallback is a section of its own, one level deep; it comes with the type's app version.
        properties["fallback"] = [
            "allOf": [["$ref": "#/$defs/section"], ["not": ["required": ["fallback"]]]],
            "description": "What apps older than min_app_version, or that do not know this type, render instead.",
        ]
        if let version = type.minimumAppVersion {
            properties["min_app_version"] = ["const": .string(version), "description": "Published with a fallback."]
            dependencies["fallback"] = ["min_app_version"]
        }
        var object: JSONObject = [
            "type": "object",
            "description": .string(type.summary),
            "properties": .object(properties),
            "required": .array(required.map { .string($0) }),
        ]
        if !dependencies.isEmpty { object["dependentRequired"] = .object(dependencies) }
        if let rules = PageSchema.destinationRules(type) { object["allOf"] = rules }
        return .object(object)
    }

    /// Each field's published members: a markdown field brings `<field>_html` and `<field>_blocks`.
    static func add(_ fields: [FieldSpec], to properties: inout JSONObject, required: inout [String], dependencies: inout JSONObject) {
        for field in fields {
            guard field.kind == .markdown else {
                properties[field.name] = schema(field)
                if field.required { required.append(field.name) }
                continue
            }
            let derived = MarkdownFieldNames.derived(field.name)
            properties[field.name] = described(
                ["type": "string"], "Markdown, in this locale." + (field.summary.isEmpty ? "" : " \(field.summary)"))
            properties[MarkdownFieldNames.html(field.name)] = [
                "type": "string", "description": .string("Safe HTML of \(field.name), rendered by cmark."),
            ]
            properties[MarkdownFieldNames.blocks(field.name)] = [
                "$ref": "#/$defs/markdown_blocks", "description": .string("The block tree of \(field.name), for native renderers."),
            ]
            if field.required { required += [field.name] + derived }
            dependencies[field.name] = .array(derived.map { .string($0) })
        }
    }

    static func schema(_ field: FieldSpec) -> JSONValue {
        switch field.kind {
        case .text, .markdown:
            return field.summary.isEmpty ? ["type": "string"] : described(["type": "string"], field.summary)
        case .items(let fields):
            var properties: JSONObject = ["id": PageSchema.identifier]
            var required: [String] = []
            var dependencies = JSONObject()
            add(fields, to: &properties, required: &required, dependencies: &dependencies)
            var item: JSONObject = ["type": "object", "properties": .object(properties), "required": .array(required.map { .string($0) })]
            if !dependencies.isEmpty { item["dependentRequired"] = .object(dependencies) }
            var object: JSONObject = ["type": "array", "items": .object(item)]
            if field.required { object["minItems"] = 1 }
            if !field.summary.isEmpty { object["description"] = .string(field.summary) }
            return .object(object)
        case .url, .image, .idList, .enumeration, .integer, .boolean:
            // Published as written in the source, so as the source schema has them.
            return PageSchema.schema(field)
        }
    }

    static func described(_ schema: JSONValue, _ description: String) -> JSONValue { PageSchema.described(schema, description) }
}
