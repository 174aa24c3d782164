import QuireModel

/// A site's own section types, from its vocabulary file (`vocabulary.yaml`), added to the
/// built-in registry without code:
///
///     types:
///       testimonial:
///         summary: A quote from a customer.
///         min_app_version: "2.3"
///         fields:
///           quote: { kind: text, required: true, translatable: true }
///           tone: { kind: enum, values: [calm, loud] }
enum SiteVocabulary {
    static let fieldKinds = ["text", "markdown", "url", "image", "id_list", "enum", "integer", "boolean", "items"]

    static func read(_ root: SourceNode, file: String, base: Vocabulary = .builtIn) -> (Vocabulary, [Diagnostic]) {
        var reader = SourceNodeReader(file: file)
        var vocabulary = base
        guard let members = reader.mapping(root, "") else { return (vocabulary, reader.diagnostics) }
        reader.warnUnknownKeys(members, allowed: ["types"], keyPath: "", where: "the vocabulary file")
        guard let types = reader.mapping(root["types"], "types") else { return (vocabulary, reader.diagnostics) }
        for member in types {
            let path = "types.\(member.key)"
            guard Identifier.isValid(member.key) else {
                reader.diagnostics.append(
                    .error(file, at: member.keyPosition, keyPath: path, "'\(member.key)' is not a valid type name: \(Identifier.rule)"))
                continue
            }
            if Vocabulary.builtIn[member.key] != nil {
                reader.diagnostics.append(
                    .error(
                        file, at: member.keyPosition, keyPath: path,
                        "'\(member.key)' is a built-in type and cannot be redefined: apps render it with its fixed fields; give your type another name"
                    ))
                continue
            }
            guard let body = reader.mapping(member.value, path) else { continue }
            reader.warnUnknownKeys(body, allowed: ["summary", "min_app_version", "fields"], keyPath: path, where: "a type")
            guard let fields = readFields(member.value["fields"], path: "\(path).fields", isSection: true, reader: &reader) else {
                if member.value["fields"] == nil { reader.error(member.value, path, "a type needs 'fields'") }
                continue
            }
            vocabulary.register(
                SectionTypeSpec(
                    member.key, summary: member.value["summary"]?.string ?? "",
                    minimumAppVersion: reader.string(member.value["min_app_version"], "\(path).min_app_version"), fields: fields))
        }
        return (vocabulary, reader.diagnostics)
    }

    /// The fields of a type (`isSection`) or of an item of an items field.
    private static func readFields(
        _ node: SourceNode?, path: String, isSection: Bool = false,
        reader: inout SourceNodeReader
    ) -> [FieldSpec]? {
        guard let node, let members = reader.mapping(node, path) else { return nil }
        var fields: [FieldSpec] = []
        var keyPositions: [String: SourcePosition] = [:]
        for member in members {
            let fieldPath = "\(path).\(member.key)"
            if Vocabulary.commonSectionKeys.contains(member.key) {
                reader.diagnostics.append(
                    .error(
                        reader.file, at: member.keyPosition, keyPath: fieldPath,
                        "'\(member.key)' is reserved for every section and cannot be a field"))
                continue
            }
            if isSection && Vocabulary.publishedSectionKeys.contains(member.key) {
                reader.diagnostics.append(
                    .error(
                        reader.file, at: member.keyPosition, keyPath: fieldPath,
                        "'\(member.key)' is where Quire publishes the type's app version beside a fallback: give this field another name"))
                continue
            }
            guard reader.mapping(member.value, fieldPath) != nil else { continue }
            reader.warnUnknownKeys(
                member.value.members ?? [], allowed: ["kind", "required", "translatable", "values", "fields", "summary"],
                keyPath: fieldPath, where: "a field")
            guard let kindName = reader.string(member.value["kind"], "\(fieldPath).kind") else {
                if member.value["kind"] == nil {
                    reader.error(member.value, fieldPath, "a field needs a 'kind' (\(fieldKinds.joined(separator: ", ")))")
                }
                continue
            }
            let kind: FieldKind
            switch kindName {
            case "text": kind = .text
            case "markdown": kind = .markdown
            case "url": kind = .url
            case "image": kind = .image
            case "id_list": kind = .idList
            case "integer": kind = .integer
            case "boolean": kind = .boolean
            case "enum":
                guard let values = reader.stringList(member.value["values"], "\(fieldPath).values"), !values.isEmpty else {
                    reader.error(member.value, fieldPath, "an enum field needs a non-empty 'values' list")
                    continue
                }
                kind = .enumeration(values)
            case "items":
                guard let itemFields = readFields(member.value["fields"], path: "\(fieldPath).fields", reader: &reader) else {
                    reader.error(member.value, fieldPath, "an items field needs 'fields'")
                    continue
                }
                kind = .items(itemFields)
            default:
                reader.error(
                    member.value["kind"] ?? member.value, "\(fieldPath).kind",
                    "unknown field kind '\(kindName)': use one of \(fieldKinds.joined(separator: ", "))")
                continue
            }
            keyPositions[member.key] = member.keyPosition
            let translatable = reader.bool(member.value["translatable"], "\(fieldPath).translatable") ?? false
            if translatable && kind != .text && kind != .markdown {
                reader.error(member.value, fieldPath, "only text and markdown fields can be translatable")
            }
            fields.append(
                FieldSpec(
                    member.key, kind, required: reader.bool(member.value["required"], "\(fieldPath).required") ?? false,
                    translatable: translatable && (kind == .text || kind == .markdown),
                    summary: member.value["summary"]?.string ?? ""))
        }
        for clash in MarkdownFieldNames.clashes(in: fields) {
            let name = clash.field.name
            reader.diagnostics.append(
                .error(
                    reader.file, at: keyPositions[name] ?? node.position, keyPath: "\(path).\(name)",
                    "'\(name)' is where the markdown field '\(clash.markdownField)' is published pre-rendered: give this field another name"
                ))
        }
        return fields
    }
}
