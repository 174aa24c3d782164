#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Byte searches over a string's UTF-8 storage. `String.UTF8View`'s generic `contains` walks
/// the view one index at a time, which shows up when every long markdown body is checked
/// for a `{` or a `[` before anything else; `memchr` scans many bytes at a time.
enum UTF8Scan {
    static func contains(_ text: String, byte: UInt8) -> Bool {
        let found = text.utf8.withContiguousStorageIfAvailable { buffer -> Bool in
            guard let start = buffer.baseAddress else { return false }
            return memchr(start, Int32(byte), buffer.count) != nil
        }
        return found ?? text.utf8.contains(byte)
    }

    static func contains(_ text: String, anyOf first: UInt8, _ second: UInt8) -> Bool {
        contains(text, byte: first) || contains(text, byte: second)
    }

    /// Whether `text`'s bytes start with `prefix`'s: one `memcmp` where both lend their bytes.
    static func hasPrefix(_ text: String, _ prefix: String) -> Bool {
        let compared = text.utf8.withContiguousStorageIfAvailable { mine in
            prefix.utf8.withContiguousStorageIfAvailable { theirs in
                theirs.count <= mine.count && (theirs.isEmpty || memcmp(mine.baseAddress!, theirs.baseAddress!, theirs.count) == 0)
            }
        }
        if let compared, let hasPrefix = compared { return hasPrefix }
        return text.utf8.starts(with: prefix.utf8)
    }

    /// The `/`s of a `/`-separated path: how many folders its last component is below the top.
    static func slashes(in path: String) -> Int {
        path.utf8.count { $0 == UInt8(ascii: "/") }
    }
}
