import Foundation

/// Edits the targets of some units of an XLIFF file in place, leaving every other byte as it
/// was: a file from a translation tool keeps its comments, states, notes and layout, and differs
/// only in the strings edited. Nil when a unit or its source cannot be found this way; the
/// caller then writes the file afresh (`TranslationFileWriter`).
enum XLIFFTargetEdit {
    struct Edit {
        var key: String
        var text: String
        var source: String
        var isMarkdown: Bool
        /// The file's source is an older text: it becomes the current one, or the new target stays stale.
        var replaceSource: Bool
    }

    static func apply(_ edits: [Edit], to bytes: [UInt8], version: XLIFFInlineCodes.Version) -> [UInt8]? {
        guard var text = String(validating: bytes, as: UTF8.self) else { return nil }
        let unitTag = version == .v12 ? "trans-unit" : "unit"
        for edit in edits {
            guard let range = unitRange(of: edit.key, tag: unitTag, in: text),
                let unit = editUnit(String(text[range]), edit, version: version)
            else { return nil }
            text.replaceSubrange(range, with: unit)
        }
        return Array(text.utf8)
    }

    /// One unit's text with its target's content replaced (or a target added after the
    /// source), marked translated: a state that said "needs review" or "initial" would make the
    /// new text stale.
    private static func editUnit(_ unit: String, _ edit: Edit, version: XLIFFInlineCodes.Version) -> String? {
        var text = unit
        var codes = XLIFFInlineCodes(version)
        let sourceMarkup = codes.source(edit.source, isMarkdown: edit.isMarkdown)
        let markup = codes.target(edit.text, isMarkdown: edit.isMarkdown)
        if edit.replaceSource {
            guard let source = elementContent("source", in: text, within: text.startIndex..<text.endIndex) else { return nil }
            text.replaceSubrange(source, with: sourceMarkup)
        }
        let whole = text.startIndex..<text.endIndex
        if let content = elementContent("target", in: text, within: whole) {
            text.replaceSubrange(content, with: markup)
        } else if let target = emptyElement("target", in: text, within: whole) {
            let tag = text[target].dropLast(2).trimmingCharacters(in: .whitespaces)
            text.replaceSubrange(target, with: "\(tag)>\(markup)</target>")
        } else if let sourceEnd = text.range(of: "</source>") {
            let lineStart = text[..<sourceEnd.lowerBound].lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
            let indent = String(text[lineStart...].prefix { $0 == " " || $0 == "\t" })
            let attributes = version == .v20 ? " xml:space=\"preserve\"" : " state=\"translated\""
            text.insert(contentsOf: "\n\(indent)<target\(attributes)>\(markup)</target>", at: sourceEnd.upperBound)
        } else {
            return nil
        }
        switch version {
        case .v20:
            text = text.replacingOccurrences(of: " state=\"initial\"", with: " state=\"translated\"")
        case .v12:
            for state in [
                "new", "needs-translation", "needs-review-translation", "needs-adaptation", "needs-l10n", "needs-review-adaptation",
                "needs-review-l10n",
            ] {
                text = text.replacingOccurrences(of: " state=\"\(state)\"", with: " state=\"translated\"")
            }
        }
        return text
    }

    /// From the unit's start tag to its end tag, found by its `id` (or XLIFF 1.2's `resname`).
    private static func unitRange(of key: String, tag: String, in text: String) -> Range<String.Index>? {
        let quoted = "\"" + XMLText.attribute(key) + "\""
        var searchFrom = text.startIndex
        while let open = text.range(of: "<\(tag)", range: searchFrom..<text.endIndex) {
            searchFrom = open.upperBound
            guard let next = text[open.upperBound...].first, next == " " || next == "\n" || next == "\t" || next == "\r",
                let close = text.range(of: ">", range: open.upperBound..<text.endIndex)
            else { continue }
            let attributes = text[open.upperBound..<close.lowerBound]
            guard
                attributes.contains(" id=" + quoted) || attributes.contains("\tid=" + quoted) || attributes.contains("\nid=" + quoted)
                    || (tag == "trans-unit" && attributes.contains("resname=" + quoted))
            else { continue }
            guard let end = text.range(of: "</\(tag)>", range: close.upperBound..<text.endIndex) else { return nil }
            return open.lowerBound..<end.upperBound
        }
        return nil
    }

    /// The content between `<name ...>` and `</name>` inside `range`.
    private static func elementContent(_ name: String, in text: String, within range: Range<String.Index>) -> Range<String.Index>? {
        guard let open = startTag(name, in: text, within: range), text[open].last == ">", !text[open].hasSuffix("/>"),
            let close = text.range(of: "</\(name)>", range: open.upperBound..<range.upperBound)
        else { return nil }
        return open.upperBound..<close.lowerBound
    }

    /// `<name .../>` inside `range`.
    private static func emptyElement(_ name: String, in text: String, within range: Range<String.Index>) -> Range<String.Index>? {
        guard let open = startTag(name, in: text, within: range), text[open].hasSuffix("/>") else { return nil }
        return open
    }

    private static func startTag(_ name: String, in text: String, within range: Range<String.Index>) -> Range<String.Index>? {
        var from = range.lowerBound
        while let open = text.range(of: "<\(name)", range: from..<range.upperBound) {
            from = open.upperBound
            guard let next = text[open.upperBound...].first, next == ">" || next == " " || next == "/" || next == "\n" || next == "\t",
                let close = text.range(of: ">", range: open.upperBound..<range.upperBound)
            else { continue }
            return open.lowerBound..<close.upperBound
        }
        return nil
    }
}
