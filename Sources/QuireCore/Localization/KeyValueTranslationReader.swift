/// Reads Quire's own translation files, YAML or JSON, with flat keys:
///
/// ```yaml
/// "@page_id": trex-store          # optional metadata, "@locale" too
/// hero.title: Essentiels de l'entraînement
/// why.body:
///   text: "### Pourquoi ..."
///   source: "### Why ..."         # the source it was translated from: stale detection
///   state: stale                  # optional: translated | stale | new (what the export wrote)
/// ```
enum KeyValueTranslationReader {
    static func read(_ bytes: [UInt8], file: String, format: SourceFormat) throws(Diagnostic) -> (TranslationCatalog, [Diagnostic]) {
        let root = try SourceParser.parse(bytes, format: format, file: file)
        guard let members = root.members else {
            throw Diagnostic.error(
                file, at: root.position, "a translation file must map keys to translated text, found \(root.kindDescription)")
        }
        var catalog = TranslationCatalog(file: file)
        catalog.entries.reserveCapacity(members.count)  // one allocation, not one per doubling
        var warnings: [Diagnostic] = []
        for member in members {
            if member.key.utf8.first == UInt8(ascii: "@") {  // a byte check: `hasPrefix` costs more than the entry
                try readMetadata(member, into: &catalog, warnings: &warnings)
                continue
            }
            if let entry = try entry(member, file: file, warnings: &warnings) { catalog.entries.append(consume entry) }
        }
        return (catalog, warnings)
    }

    private static func readMetadata(_ member: SourceMember, into catalog: inout TranslationCatalog, warnings: inout [Diagnostic])
        throws(Diagnostic)
    {
        let file = catalog.file
        switch member.key {
        case "@page_id", "@locale", "@source_locale":
            guard let text = member.value.string else {
                throw Diagnostic.error(
                    file, at: member.value.position, keyPath: member.key, "must be text, found \(member.value.kindDescription)")
            }
            if member.key == "@page_id" { catalog.pageID = text }
            if member.key == "@locale" { catalog.locale = text }
        default:
            warnings.append(
                .warning(
                    file, at: member.keyPosition, keyPath: member.key,
                    "unknown metadata \"\(member.key)\" is ignored; known are @page_id, @locale and @source_locale"))
        }
    }

    private static func entry(_ member: SourceMember, file: String, warnings: inout [Diagnostic]) throws(Diagnostic) -> TranslationEntry? {
        let value = member.value
        switch value.value {
        case .string(let text):
            return TranslationEntry(key: member.key, text: text, position: member.keyPosition)
        case .null:
            warnings.append(
                .warning(
                    file, at: value.position, keyPath: member.key,
                    "has no translation and stays untranslated; write the translated text or remove the key"))
            return nil
        case .object(let fields):
            var text: String?
            var source: String?
            var state = ExportUnit.State.translated
            for field in fields {
                switch field.key {
                case "text", "source", "note", "state":
                    guard let fieldText = field.value.string else {
                        throw Diagnostic.error(
                            file, at: field.value.position, keyPath: "\(member.key).\(field.key)",
                            "must be text, found \(field.value.kindDescription)")
                    }
                    if field.key == "text" { text = fieldText }
                    if field.key == "source" { source = fieldText }
                    if field.key == "state" {
                        guard let known = ExportUnit.State(rawValue: fieldText) ?? (fieldText == "fuzzy" ? .stale : nil) else {
                            throw Diagnostic.error(
                                file, at: field.value.position, keyPath: "\(member.key).state",
                                "unknown state \"\(fieldText)\"; use translated, stale or new")
                        }
                        state = known
                    }
                default:
                    warnings.append(
                        .warning(
                            file, at: field.keyPosition, keyPath: "\(member.key).\(field.key)",
                            "unknown field \"\(field.key)\" is ignored; known are text, source, state and note"))
                }
            }
            guard let text, state != .new || !text.isEmpty else { return nil }  // exported, not yet translated
            return TranslationEntry(key: member.key, text: text, sourceText: source, isFuzzy: state == .stale, position: member.keyPosition)
        default:
            throw Diagnostic.error(
                file, at: value.position, keyPath: member.key, "must be the translated text, found \(value.kindDescription)")
        }
    }
}
