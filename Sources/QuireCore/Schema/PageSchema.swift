public import QuireModel

/// A JSON Schema (draft 2020-12) of page sources, generated from the vocabulary, so editors get
/// completion and checking in VS Code and JetBrains. Rules a schema cannot express (unique ids,
/// `navigate` targets, asset files, translations) stay Quire's own; see README.md.
public enum PageSchema {
    public static func make(vocabulary: Vocabulary, config: SiteConfig? = nil) -> JSONValue {
        var definitions = JSONObject()
        for type in vocabulary.types { definitions["section_\(type.name)"] = sectionSchema(type, config: config) }
        definitions["section"] = section(vocabulary)
        let sectionList: JSONValue = ["type": "array", "items": ["$ref": "#/$defs/section"]]
        let page: JSONObject = JSONObject([
            ("$schema", "https://json-schema.org/draft/2020-12/schema"),
            ("$id", .string("https://quire.invalid/schema/\(config?.name ?? "page").schema.json")),
            ("title", "Quire page source"),
            ("description", "A page: an ordered list of typed sections. Unknown section types are allowed (published with a warning)."),
            ("type", "object"),
            ("properties", .object(JSONObject([
                ("$schema", ["type": "string"]),
                ("page_id", ["type": "string", "pattern": "^[a-z0-9_-]+(/[a-z0-9_-]+)*$", "description": "Optional; must equal the id derived from the file's path."]),
                ("title", ["type": "string"]),
                ("ttl", ["type": "integer", "minimum": 0, "description": "Seconds apps and caches may keep the page."]),
                ("refresh", ["type": "object"]),
                ("draft", ["type": "boolean"]),
                ("publish_at", ["type": "string"]),
                ("expires_at", ["type": "string"]),
                ("redirect_to", ["type": "string"]),
                ("sections", sectionList),
            ]))),
            ("anyOf", [["required": ["sections"]], ["required": ["redirect_to"]]]),
            ("$defs", .object(definitions)),
        ])
        return .object(page)
    }

    static func section(_ vocabulary: Vocabulary) -> JSONValue {
        let names = vocabulary.types.map { JSONValue.string($0.name) }
        var conditions: [JSONValue] = []
        for type in vocabulary.types {
            conditions.append([
                "if": ["properties": ["type": ["const": .string(type.name)]], "required": ["type"]],
                "then": ["$ref": .string("#/$defs/section_\(type.name)")],
            ])
        }
        return [
            "type": "object",
            "required": ["type"],
            "properties": [
                "type": ["anyOf": [["enum": .array(names)], ["type": "string"]], "description": "The section type; unknown types are published unchanged with a warning."],
            ],
            "allOf": .array(conditions),
        ]
    }

    static func sectionSchema(_ type: SectionTypeSpec, config: SiteConfig?) -> JSONValue {
        var properties = JSONObject()
        properties["type"] = ["const": .string(type.name)]
        properties["id"] = identifier
        var audience: JSONObject = ["type": "string"]
        if let config, !config.audiences.isEmpty { audience["enum"] = .array(config.audiences.map { .string($0) }) }
        properties["visible_to"] = ["anyOf": [.object(audience), ["type": "array", "items": .object(audience)]]]
        properties["fallback"] = ["$ref": "#/$defs/section"]
        properties["publish_at"] = ["type": "string"]
        properties["expires_at"] = ["type": "string"]
        for field in type.fields { properties[field.name] = schema(field) }
        return [
            "type": "object",
            "description": .string(type.summary),
            "properties": .object(properties),
            "required": .array((["type"] + type.fields.filter(\.required).map(\.name)).map { .string($0) }),
        ]
    }

    static let identifier: JSONValue = ["type": "string", "pattern": "^[a-z0-9_-]+$"]
    /// `https:`, `http:` (any case) or a `/`-relative path that is not protocol-relative.
    static let url: JSONValue = ["type": "string", "pattern": "^([hH][tT][tT][pP][sS]?:|/(?!/))[^\\u0000-\\u001f\\u007f]*$", "not": ["pattern": "^\\s|\\s$"]]

    static func schema(_ field: FieldSpec) -> JSONValue {
        var object: JSONObject
        switch field.kind {
        case .text, .markdown:
            object = ["type": "string"]
            if field.required { object["pattern"] = "\\S" }
        case .url, .image: object = url.objectValue ?? JSONObject()
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
                "items": ["type": "object", "properties": .object(properties), "required": .array(fields.filter(\.required).map { .string($0.name) })],
            ]
            if field.required { object["minItems"] = 1 }
        }
        if !field.summary.isEmpty { object["description"] = .string(field.summary) }
        return .object(object)
    }
}
