/// Text written into a file nginx reads, as one quoted nginx string: `"` and `\` escaped, so
/// no value can end the string and write directives of its own. Values are checked before they
/// get here (site names, page ids and locales follow their rules); this is the second wall.
enum NginxQuoting {
    static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        appendEscaped(text, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` escaped for the inside of a quoted nginx string.
    static func appendEscaped(_ text: String, to bytes: inout [UInt8]) {
        let quote = UInt8(ascii: "\"")
        let backslash = UInt8(ascii: "\\")
        var text = text
        text.withUTF8 { utf8 in
            guard utf8.contains(where: { $0 == quote || $0 == backslash }) else { return bytes.append(contentsOf: utf8) }
            for byte in utf8 {
                if byte == quote || byte == backslash { bytes.append(backslash) }
                bytes.append(byte)
            }
        }
    }
}
