import QuireModel

/// The JSON Schema of a markdown field's block tree (`<field>_blocks`), as `MarkdownBlockWriter`
/// writes it: blocks hold blocks or inlines, inlines hold inlines. Node types not listed here may
/// appear in later formats; like sections, they are open objects with a `type`, for apps to skip.
enum MarkdownTreeSchema {
    static var definitions: [(String, JSONValue)] {
        var result: [(String, JSONValue)] = [
            ("markdown_blocks", ["type": "array", "items": ["$ref": "#/$defs/block"]]),
            ("block", dispatcher("block", blocks.map(\.name), "A block node: paragraph, heading, quote, list, code or thematic_break.")),
        ]
        result += blocks.map { ("block_\($0.name)", node($0.name, $0.members, optional: $0.optional)) }
        result.append(("other_block", PublishedPageSchema.other("block", blocks.map(\.name))))
        result += [
            ("inlines", ["type": "array", "items": ["$ref": "#/$defs/inline"]]),
            (
                "inline",
                dispatcher("inline", inlines.map(\.name), "An inline node: text, emphasis, strong, link, image, code or line_break.")
            ),
        ]
        result += inlines.map { ("inline_\($0.name)", node($0.name, $0.members, optional: $0.optional)) }
        result.append(("other_inline", PublishedPageSchema.other("inline", inlines.map(\.name))))
        return result
    }

    typealias Node = (name: String, members: [(String, JSONValue)], optional: Set<String>)

    static let blockList: JSONValue = ["$ref": "#/$defs/markdown_blocks"]
    static let inlineList: JSONValue = ["$ref": "#/$defs/inlines"]
    static let text: JSONValue = ["type": "string"]

    static let blocks: [Node] = [
        ("paragraph", [("inlines", inlineList)], []),
        ("heading", [("level", ["type": "integer", "minimum": 1, "maximum": 6]), ("inlines", inlineList)], []),
        ("quote", [("blocks", blockList)], []),
        (
            "list",
            [
                ("ordered", ["type": "boolean"]),
                ("start", ["type": "integer", "description": "The first number of an ordered list."]),
                ("tight", ["type": "boolean", "description": "Whether the items are set without space between them."]),
                ("items", ["type": "array", "items": blockList, "description": "Each item is a list of blocks."]),
            ], ["start"]
        ),
        ("code", [("language", PublishedPageSchema.described(text, "The first word of the info string.")), ("text", text)], ["language"]),
        ("thematic_break", [], []),
    ]

    static let inlines: [Node] = [
        ("text", [("text", text)], []),
        ("emphasis", [("inlines", inlineList)], []),
        ("strong", [("inlines", inlineList)], []),
        ("link", [("url", text), ("title", text), ("inlines", inlineList)], ["title"]),
        ("image", [("url", text), ("alt", text), ("title", text)], ["title"]),
        ("code", [("text", text)], []),
        ("line_break", [], []),
    ]

    /// Checks a node of a listed type against its own schema; any other type is left open.
    static func dispatcher(_ kind: String, _ names: [String], _ description: String) -> JSONValue {
        PublishedPageSchema.union(kind, names, description + " Apps skip node types they do not know.")
    }

    static func node(_ name: String, _ members: [(String, JSONValue)], optional: Set<String>) -> JSONValue {
        [
            "type": "object",
            "properties": .object(JSONObject([("type", ["const": .string(name)])] + members)),
            "required": .array((["type"] + members.map(\.0).filter { !optional.contains($0) }).map { .string($0) }),
        ]
    }
}
