/// Byte searches over a string's UTF-8 storage. `String.UTF8View`'s generic `contains` walks
/// the view one index at a time, which shows up when every long markdown body is checked
/// for a `{` or a `[` before anything else.
enum UTF8Scan {
    static func contains(_ text: String, byte: UInt8) -> Bool {
        contains(text) { $0 == byte }
    }

    static func contains(_ text: String, where isMatch: (UInt8) -> Bool) -> Bool {
        if let found = text.utf8.withContiguousStorageIfAvailable({ $0.contains(where: isMatch) }) { return found }
        return text.utf8.contains(where: isMatch)
    }
}
