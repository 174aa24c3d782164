/// The texts of `RenderedMarkdown.removed`, kept together. Each quotes what was removed, on one
/// line and shortened, so a warning stays readable.
enum MarkdownRemovalMessage {
    static let quotedLength = 40

    static func describe(_ removal: CommonMarkRemoval) -> String {
        switch removal {
        case .rawHTML(let html):
            return "raw HTML '\(quoted(html))' (markdown fields cannot carry HTML)"
        case .link(let url):
            return "link to '\(quoted(url))' (unsafe URL: its text is kept; use https:, http:, mailto:, tel: or a path)"
        case .image(let url):
            return "image '\(quoted(url))' (unsafe URL: its alt text is kept; use https:, http: or a path)"
        }
    }

    static func deepNesting(limit: Int) -> String {
        "content nested more than \(limit) levels deep (kept as plain text)"
    }

    static let listedLimit = 20

    /// At most `listedLimit` messages and a count of the rest: a pasted page of 10,000 tracking
    /// pixels should make one readable warning, not 10,000 lines.
    static func summarized(_ messages: [String]) -> [String] {
        guard messages.count > listedLimit else { return messages }
        return Array(messages.prefix(listedLimit)) + ["and \(messages.count - listedLimit) more removals"]
    }

    /// Trimmed, control characters spelled out (`java\tscript:` stays visible), at most
    /// `quotedLength` characters.
    static func quoted(_ text: String) -> String {
        var result = ""
        var count = 0
        for character in text.trimmingWhitespace() {
            if count == quotedLength {
                result += "…"
                break
            }
            switch character {
            case "\n", "\r\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1,
                    scalar.value < 0x20 || scalar.value == 0x7F
                {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.append(character)
                }
            }
            count += 1
        }
        return result
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
