import QuireModel

/// Writes what a translator needs (`quire l10n export`): every key, its source text, its current
/// translation and state. In XLIFF, `{placeholders}` and the markup of markdown links go out as
/// inline codes (`XLIFFInlineCodes`), the rest as escaped text; PO and JSON carry plain text.
/// Every file reads back through `TranslationFileReader` to the very strings it was written from.
///
/// States: XLIFF 1.2 `new` (no target) / `translated` + `approved="yes"` / `needs-review-translation`;
/// XLIFF 2.0 `initial` / `translated` / `initial` with a target; PO empty `msgstr` / `msgstr` /
/// `#, fuzzy`; JSON `"state"`. The key also goes into a `key: …` developer note, because
/// translate-toolkit (`po2xliff`, `xliff2po`) drops `msgctxt` and XLIFF ids.
public enum TranslationFileWriter {
    public static func write(
        units: [ExportUnit], pageID: String, sourceLocale: String, targetLocale: String, format: ExportFormat
    ) -> [UInt8] {
        let text: String
        switch format {
        case .xliff12: text = xliff12(units, pageID: pageID, sourceLocale: sourceLocale, targetLocale: targetLocale)
        case .xliff20: text = xliff20(units, pageID: pageID, sourceLocale: sourceLocale, targetLocale: targetLocale)
        case .po: return POWriter.write(units, pageID: pageID, sourceLocale: sourceLocale, targetLocale: targetLocale)
        case .json: return json(units, pageID: pageID, sourceLocale: sourceLocale, targetLocale: targetLocale)
        }
        return Array(text.utf8)
    }

    private static func xliff12(_ units: [ExportUnit], pageID: String, sourceLocale: String, targetLocale: String) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
              <file original="\(XMLText.attribute(pageID))" source-language="\(XMLText.attribute(sourceLocale))" target-language="\(XMLText.attribute(targetLocale))" datatype="plaintext">
                <body>

            """
        for unit in units {
            let approved = unit.state == .translated ? " approved=\"yes\"" : ""
            var codes = XLIFFInlineCodes(.v12)
            out +=
                "      <trans-unit id=\"\(XMLText.attribute(unit.key))\" resname=\"\(XMLText.attribute(unit.key))\" xml:space=\"preserve\"\(approved)>\n"
            out += "        <source>\(codes.source(unit.sourceText, isMarkdown: unit.isMarkdown))</source>\n"
            switch (unit.state, unit.translation) {
            case (.new, _), (_, nil): break
            case (.translated, let translation?):
                out += "        <target state=\"translated\">\(codes.target(translation, isMarkdown: unit.isMarkdown))</target>\n"
            case (.stale, let translation?):
                let markup = codes.target(translation, isMarkdown: unit.isMarkdown)
                out += "        <target state=\"needs-review-translation\">\(markup)</target>\n"
            }
            out += "        <note from=\"developer\">\(XMLText.content(developerNote(unit)))</note>\n"
            out += "      </trans-unit>\n"
        }
        out += "    </body>\n  </file>\n</xliff>\n"
        return out
    }

    private static func xliff20(_ units: [ExportUnit], pageID: String, sourceLocale: String, targetLocale: String) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="\(XMLText.attribute(sourceLocale))" trgLang="\(XMLText.attribute(targetLocale))">
              <file id="f1" original="\(XMLText.attribute(pageID))">

            """
        for unit in units {
            out += "    <unit id=\"\(XMLText.attribute(unit.key))\">\n"
            if let note = unit.note { out += "      <notes><note category=\"description\">\(XMLText.content(note))</note></notes>\n" }
            let target: String?
            let state: String
            switch (unit.state, unit.translation) {
            case (.new, _), (_, nil): (target, state) = (nil, "initial")
            case (.translated, let translation?): (target, state) = (translation, "translated")
            case (.stale, let translation?): (target, state) = (translation, "initial")
            }
            var codes = XLIFFInlineCodes(.v20)
            let source = codes.source(unit.sourceText, isMarkdown: unit.isMarkdown)
            let targetMarkup = target.map { codes.target($0, isMarkdown: unit.isMarkdown) }
            out += codes.originalDataElement(indent: "      ")
            out += "      <segment state=\"\(state)\">\n"
            out += "        <source xml:space=\"preserve\">\(source)</source>\n"
            if let targetMarkup { out += "        <target xml:space=\"preserve\">\(targetMarkup)</target>\n" }
            out += "      </segment>\n    </unit>\n"
        }
        out += "  </file>\n</xliff>\n"
        return out
    }

    private static func json(_ units: [ExportUnit], pageID: String, sourceLocale: String, targetLocale: String) -> [UInt8] {
        var members: [(String, JSONValue)] = [
            ("@page_id", .string(pageID)), ("@locale", .string(targetLocale)), ("@source_locale", .string(sourceLocale)),
        ]
        for unit in units {
            var fields: [(String, JSONValue)] = [("source", .string(unit.sourceText))]
            if unit.state != .new, let translation = unit.translation { fields.append(("text", .string(translation))) }
            fields.append(("state", .string(unit.state.rawValue)))
            if let note = unit.note { fields.append(("note", .string(note))) }
            members.append((unit.key, .object(JSONObject(fields))))
        }
        return JSONWriter(pretty: true).bytes(.object(JSONObject(members))) + [UInt8(ascii: "\n")]
    }

    /// `key: hero.title`, then the note: survives tools that drop ids and contexts.
    static func developerNote(_ unit: ExportUnit) -> String {
        [QuireKeyNote.prefix + unit.key, unit.note].compactMap { $0 }.joined(separator: "\n")
    }
}

/// XML escaping for text Quire writes.
enum XMLText {
    static func content(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\r": out += "&#13;"
            // XML 1.0 cannot carry other control characters at all.
            case _ where scalar.value < 0x20 && scalar != "\n" && scalar != "\t": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func attribute(_ text: String) -> String {
        content(text).replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "\n", with: "&#10;").replacingOccurrences(
            of: "\t", with: "&#9;")
    }
}
