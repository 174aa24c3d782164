extension String {
    /// True when the text is empty or only white space (Unicode's White_Space). On bytes while
    /// they are ASCII: nearly every text starts with a letter, and asking a scalar for its
    /// properties cost more than the rest of a translation's checks. From the first non-ASCII
    /// byte on, on Unicode scalars (Foundation's `trimmingCharacters` goes through UTF-16 on
    /// Linux and is slow on long markdown bodies).
    var isBlank: Bool {
        var asciiPrefix = 0
        for byte in utf8 {
            guard byte < 0x80 else { break }
            // ASCII's White_Space: tab, line feed, vertical tab, form feed, carriage return, space.
            guard byte == 0x20 || (0x09...0x0D).contains(byte) else { return false }
            asciiPrefix += 1
        }
        return unicodeScalars.dropFirst(asciiPrefix).allSatisfy(\.properties.isWhitespace)
    }
}
