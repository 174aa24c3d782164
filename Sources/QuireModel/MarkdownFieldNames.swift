/// Where a markdown field's pre-rendered forms are published: beside the field, which keeps the
/// markdown string the app team's spec gives it (`body`, `body_html`, `body_blocks`).
public enum MarkdownFieldNames {
    /// The safe HTML cmark renders from the field.
    public static func html(_ field: String) -> String { field + "_html" }

    /// The block tree native renderers walk.
    public static func blocks(_ field: String) -> String { field + "_blocks" }

    /// The published names a markdown field adds beside its own.
    public static func derived(_ field: String) -> [String] { [html(field), blocks(field)] }

    /// The fields among `fields` (a type's fields, or an item's) whose name a markdown field of the
    /// same list publishes, each with that markdown field: both would be written under one key.
    public static func clashes(in fields: [FieldSpec]) -> [(field: FieldSpec, markdownField: String)] {
        var taken: [String: String] = [:]
        for markdown in fields where markdown.kind == .markdown { for name in derived(markdown.name) { taken[name] = markdown.name } }
        return fields.compactMap { field in taken[field.name].map { (field, $0) } }
    }
}
