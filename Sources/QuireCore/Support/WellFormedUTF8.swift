#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Text a C library hands back that is well-formed UTF-8 by construction: libyaml's scalars
/// (its reader, or `YAMLReaderCheck` in its place, checks every byte as `SourceTextCheck` does,
/// and it encodes escapes itself) and
/// cmark's output from a Swift string (it splits text only at ASCII bytes, and turns entities
/// that name no character into U+FFFD). The copy skips Swift's second validation, which on
/// non-ASCII text (translations) cost more than making the value. `FastPathTests` holds each
/// caller to the checked copy.
enum WellFormedUTF8 {
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let span = Span(_unsafeElements: bytes)
        var text = unsafe UTF8Span(unchecked: span)
        // Marked ASCII when it is, as Swift's own check would mark it: a string not so marked is
        // hashed and compared through Unicode normalization (translation keys in dictionaries).
        _ = text.checkForASCII()
        return String(copying: text)
    }

    /// Bytes that may not be UTF-8 (a file read back): nil unless they are. Through `UTF8Span`:
    /// `String(validating:as:)` looks up the encoding's generic metadata on every call, which
    /// was a tenth of reading a file of a million strings.
    static func validated(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard var text = try? UTF8Span(validating: Span(_unsafeElements: bytes)) else { return nil }
        _ = text.checkForASCII()
        return String(copying: text)
    }

    static func string(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { string($0) }
    }

    /// A NUL-terminated C string.
    static func string(cString: UnsafePointer<CChar>) -> String {
        let count = strlen(cString)
        return cString.withMemoryRebound(to: UInt8.self, capacity: count) { string(UnsafeBufferPointer(start: $0, count: count)) }
    }
}
