public import QuireModel

/// A JSON Schema (draft 2020-12) of page sources, generated from the vocabulary, so editors get
/// completion and checking in VS Code and JetBrains. It accepts and refuses what `PageValidator`
/// does (tests/e2e/schema-jsonschema.sh checks both on every fixture), except for the rules a
/// schema cannot express, listed there and in README.md: unique ids, `page_id` against the
/// path, `navigate` targets, asset files, audiences and limits without `--site`, source syntax.
public enum PageSchema {
    public static func make(vocabulary: Vocabulary, config: SiteConfig? = nil) -> JSONValue {
        var definitions = JSONObject()
        for type in vocabulary.types { definitions["section_\(type.name)"] = sectionSchema(type, config: config) }
        definitions["section"] = section(vocabulary, config: config)
        var sectionList: JSONObject = ["type": "array", "items": ["$ref": "#/$defs/section"]]
        if let config { sectionList["maxItems"] = .integer(config.limits.maxSections) }
        let page: JSONObject = JSONObject([
            ("$schema", "https://json-schema.org/draft/2020-12/schema"),
            ("$id", .string("https://quire.invalid/schema/\(config?.name ?? "page").schema.json")),
            ("title", "Quire page source"),
            ("description", "A page: an ordered list of typed sections. Unknown section types are allowed (published with a warning)."),
            ("type", "object"),
            (
                "properties",
                .object(
                    JSONObject([
                        ("$schema", ["type": "string"]),
                        ("page_id", described(pageID, "Optional; must equal the id derived from the file's path.")),
                        ("title", ["type": "string"]),
                        ("ttl", ["type": "integer", "minimum": 0, "description": "Seconds apps and caches may keep the page."]),
                        ("refresh", refresh),
                        (
                            "page_size",
                            ["type": "integer", "minimum": 1, "description": "Publish the page in parts of this many sections."]
                        ),
                        ("nav", .object(sectionList)),
                        ("header", .object(sectionList)),
                        ("footer", .object(sectionList)),
                        ("draft", ["type": "boolean"]),
                        ("publish_at", ["type": "string"]),
                        ("expires_at", ["type": "string"]),
                        ("redirect_to", ["type": "string"]),
                        ("sections", .object(sectionList)),
                    ]))
            ),
            ("anyOf", [["required": ["sections"]], ["required": ["redirect_to"]]]),
            ("$defs", .object(definitions)),
        ])
        return .object(page)
    }

    static func section(_ vocabulary: Vocabulary, config: SiteConfig?) -> JSONValue {
        let names = vocabulary.types.map { JSONValue.string($0.name) }
        return [
            "type": "object",
            "required": ["type"],
            "properties": [
                "type": [
                    "anyOf": [["enum": .array(names)], ["type": "string"]],
                    "description": "The section type; unknown types are published unchanged with a warning.",
                ],
                // Checked before the type is looked up, so for unknown types too.
                "id": identifier,
                "visible_to": visibleTo(config),
            ],
            "allOf": typeConditions(vocabulary),
        ]
    }

    /// For each type of the vocabulary: a section of that type is checked by `section_<type>`.
    static func typeConditions(_ vocabulary: Vocabulary) -> JSONValue {
        .array(
            vocabulary.types.map { type in
                [
                    "if": ["properties": ["type": ["const": .string(type.name)]], "required": ["type"]],
                    "then": ["$ref": .string("#/$defs/section_\(type.name)")],
                ]
            })
    }

    /// One audience or a list of them; with a site, only the audiences its site.yaml declares.
    static func visibleTo(_ config: SiteConfig?) -> JSONValue {
        var audience: JSONObject = ["type": "string"]
        if let config { audience["enum"] = .array(config.audiences.map { .string($0) }) }
        return ["anyOf": [.object(audience), ["type": "array", "items": .object(audience)]]]
    }

    static func sectionSchema(_ type: SectionTypeSpec, config: SiteConfig?) -> JSONValue {
        var properties = JSONObject()
        properties["type"] = ["const": .string(type.name)]
        properties["id"] = identifier
        properties["visible_to"] = visibleTo(config)
        // A fallback is a section of its own, one level deep.
        properties["fallback"] = ["allOf": [["$ref": "#/$defs/section"], ["not": ["required": ["fallback"]]]]]
        properties["publish_at"] = ["type": "string"]
        properties["expires_at"] = ["type": "string"]
        for field in type.fields { properties[field.name] = schema(field) }
        var object: JSONObject = [
            "type": "object",
            "description": .string(type.summary),
            "properties": .object(properties),
            "required": .array((["type"] + type.fields.filter(\.required).map(\.name)).map { .string($0) }),
        ]
        if let rules = destinationRules(type) { object["allOf"] = rules }
        return .object(object)
    }

    /// A section with `action` and `destination` (cta_button): `external` needs a web URL,
    /// `navigate` a path (PageValidator.checkDestination).
    static func destinationRules(_ type: SectionTypeSpec) -> JSONValue? {
        guard type.fields.contains(where: { $0.name == "action" }), type.fields.contains(where: { $0.name == "destination" }) else {
            return nil
        }
        func rule(_ action: String, _ pattern: String) -> JSONValue {
            [
                "if": ["properties": ["action": ["const": .string(action)]], "required": ["action"]],
                "then": ["properties": ["destination": ["pattern": .string(pattern)]]],
            ]
        }
        return [rule("external", "^[hH][tT][tT][pP][sS]?:"), rule("navigate", "^/")]
    }

    static let identifier: JSONValue = ["type": "string", "pattern": "^[a-z0-9_-]+$"]
    static let pageID: JSONValue = ["type": "string", "pattern": "^[a-z0-9_-]+(/[a-z0-9_-]+)*$"]
    static let refresh: JSONValue = [
        "type": "object", "minProperties": 1, "description": "When apps fetch the page again.",
        "properties": ["interval": ["type": "integer", "minimum": 1], "on_appear": ["type": "boolean"]],
    ]
    /// `https:`, `http:` (any case) or a `/`-relative path that is not protocol-relative
    /// (URLPolicy.checkField): no control characters, no spaces around (Unicode Zs and tab).
    static let url: JSONValue = urlSchema(prefix: "[hH][tT][tT][pP][sS]?:|/(?!/)")
    /// An image: a web URL or a file under /assets/ (its existence is Quire's to check).
    static let image: JSONValue = urlSchema(prefix: "[hH][tT][tT][pP][sS]?:|/assets/")

    /// `schema` with a description added (last, as written by hand).
    static func described(_ schema: JSONValue, _ description: String) -> JSONValue {
        guard var object = schema.objectValue else { return schema }
        object["description"] = .string(description)
        return .object(object)
    }

    static func urlSchema(prefix: String) -> JSONValue {
        let space = "[\\t \\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000]"
        return [
            "type": "string",
            "pattern": .string("^(\(prefix))[^\\u0000-\\u001f\\u007f]*$"),
            "not": ["pattern": .string("^\(space)|\(space)$")],
        ]
    }

    static func schema(_ field: FieldSpec) -> JSONValue {
        var object: JSONObject
        switch field.kind {
        case .text, .markdown:
            object = ["type": "string"]
            if field.required { object["pattern"] = "\\S" }
        case .url: object = url.objectValue ?? JSONObject()
        case .image: object = image.objectValue ?? JSONObject()
        case .idList: object = ["type": "array", "minItems": 1, "items": identifier]
        case .enumeration(let values): object = ["type": "string", "enum": .array(values.map { .string($0) })]
        case .integer: object = ["type": "integer"]
        case .boolean: object = ["type": "boolean"]
        case .items(let fields):
            var properties = JSONObject()
            properties["id"] = identifier
            for itemField in fields { properties[itemField.name] = schema(itemField) }
            object = [
                "type": "array",
                "items": [
                    "type": "object", "properties": .object(properties),
                    "required": .array(fields.filter(\.required).map { .string($0.name) }),
                ],
            ]
            if field.required { object["minItems"] = 1 }
        }
        if !field.summary.isEmpty { object["description"] = .string(field.summary) }
        return .object(object)
    }
}
