extension String {
    /// True when the text is empty or only white space. On Unicode scalars: Foundation's
    /// `trimmingCharacters` goes through UTF-16 on Linux and is slow on long markdown bodies.
    var isBlank: Bool { unicodeScalars.allSatisfy(\.properties.isWhitespace) }
}
