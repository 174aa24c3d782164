import Foundation

/// Which links may reach an app. One place, used by field validation and by the markdown stage.
public enum URLPolicy {
    public enum Verdict: Sendable, Equatable {
        case allowed
        case refused(String)
    }

    /// URL and image fields: `https:`, `http:` or a path relative to the site root (`/drills`).
    public static func checkField(_ url: String) -> Verdict {
        // Printable ASCII without spaces (nearly every URL) is neither blank nor spaced nor
        // controlled: one walk of its bytes instead of three of its scalars.
        if url.isEmpty || !url.utf8.allSatisfy({ 0x20 < $0 && $0 < 0x7F }) {
            if url.isBlank { return .refused("must not be empty") }
            if url.unicodeScalars.first?.properties.isWhitespace == true || url.unicodeScalars.last?.properties.isWhitespace == true {
                return .refused("must not start or end with spaces")
            }
            if url.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                return .refused("must not contain control characters")
            }
        }
        if url.hasPrefix("//") { return .refused("'\(url)' is protocol-relative: write https:// or a path starting with /") }
        if url.hasPrefix("/") { return .allowed }
        guard let scheme = scheme(of: url) else {
            return .refused("'\(url)' must be an https: or http: URL or a path starting with /")
        }
        if scheme == "https" || scheme == "http" { return .allowed }
        return .refused("the '\(scheme):' scheme is not allowed: use https:, http: or a path starting with /")
    }

    /// Links inside markdown: the field schemes plus `mailto:`, `tel:`, relative links and anchors.
    public static func isSafeMarkdownLink(_ url: String) -> Bool {
        if url.isEmpty { return false }
        guard let scheme = scheme(of: url) else {
            // No scheme: relative path or fragment. Control characters could hide a scheme.
            return !url.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        }
        return ["https", "http", "mailto", "tel"].contains(scheme)
    }

    /// The scheme, lower-cased, as a browser would see it: leading spaces and embedded tabs and
    /// newlines are ignored (`java\tscript:` is `javascript:`), entities are not decoded here
    /// because sources are not HTML.
    static func scheme(of url: String) -> String? {
        // Nearly every URL is printable ASCII up to its `:` or first other character: decided on
        // bytes, the same walk without a Unicode property lookup and an append per character.
        // A space, tab, control or non-ASCII byte before the decision takes the full walk.
        let quick = url.utf8.withContiguousStorageIfAvailable { bytes -> String?? in
            for (index, byte) in bytes.enumerated() {
                if byte == UInt8(ascii: ":") { return .some(index == 0 ? nil : lowercasedASCII(bytes[..<index])) }
                if byte <= 0x20 || byte >= 0x7F { return nil }
                if !isSchemeByte(byte) { return .some(nil) }
            }
            return .some(nil)
        }
        if let quick = quick ?? nil { return quick }
        return schemeByScalars(of: url)
    }

    /// `scheme(of:)` walking Unicode scalars: what the byte walk must agree with (`FastPathTests`).
    static func schemeByScalars(of url: String) -> String? {
        var letters = ""
        for scalar in url.unicodeScalars {
            if scalar == "\t" || scalar == "\n" || scalar == "\r" { continue }
            if letters.isEmpty && scalar.value <= 0x20 { continue }
            if scalar == ":" { return letters.isEmpty ? nil : letters.lowercased() }
            let isSchemeCharacter =
                scalar.properties.isASCIIHexDigit || ("a"..."z").contains(scalar)
                || ("A"..."Z").contains(scalar) || scalar == "+" || scalar == "-" || scalar == "."
            if !isSchemeCharacter { return nil }
            letters.unicodeScalars.append(scalar)
        }
        return nil
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    private static func lowercasedASCII(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        String(decoding: bytes.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
