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

    /// The `/`s of a `/`-separated path: how many folders its last component is below the top.
    static func slashes(in path: String) -> Int {
        path.utf8.count { $0 == UInt8(ascii: "/") }
    }
}
