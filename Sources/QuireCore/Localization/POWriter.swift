/// Writes a PO file that `msgfmt --check` accepts: key as `msgctxt`, source as `msgid`,
/// translation as `msgstr`, `#, fuzzy` for stale, `#: page_id`, the note as `#.`.
enum POWriter {
    static func write(_ units: [ExportUnit], pageID: String, sourceLocale: String, targetLocale: String) -> [UInt8] {
        let headerFields = [
            "Project-Id-Version: \(pageID)",
            "Language: \(targetLocale)",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=UTF-8",
            "Content-Transfer-Encoding: 8bit",
            "X-Quire-Page: \(pageID)",
            "X-Quire-Source-Language: \(sourceLocale)",
        ]
        var out = "msgid \"\"\nmsgstr \"\"\n"
        for field in headerFields { out += quoted(field.replacingOccurrences(of: "\n", with: " ") + "\n") + "\n" }
        // An empty msgid would read as a second header: such a string has nothing to translate.
        for unit in units where !unit.sourceText.isEmpty {
            out += "\n"
            for line in TranslationFileWriter.developerNote(unit).split(separator: "\n", omittingEmptySubsequences: false) {
                out += "#. \(line)\n"
            }
            out += "#: \(pageID.replacingOccurrences(of: " ", with: "_"))\n"
            if unit.state == .stale && unit.translation != nil { out += "#, fuzzy\n" }
            out += "msgctxt " + field(unit.key)
            out += "msgid " + field(unit.sourceText)
            out += "msgstr " + field(unit.state == .new ? "" : unit.translation ?? "")
        }
        return Array(out.utf8)
    }

    /// A string as PO writes it: on one line, or split after each `\n` like gettext does.
    private static func field(_ text: String) -> String {
        guard text.contains("\n"), text.firstIndex(of: "\n") != text.index(before: text.endIndex) || text.count > 40 else {
            return quoted(text) + "\n"
        }
        var out = "\"\"\n"
        var line = ""
        for character in text {
            line.append(character)
            if character == "\n" {
                out += quoted(line) + "\n"
                line = ""
            }
        }
        if !line.isEmpty { out += quoted(line) + "\n" }
        return out
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\" + String(scalar.value, radix: 8).leftPadded(to: 3)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
