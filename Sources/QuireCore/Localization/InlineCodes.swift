/// A string as a translator's tool should see it: text to translate, and inline codes that are
/// kept verbatim (placeholders, the markup around a link's text). XLIFF export writes the codes
/// as `<ph>`/`<bpt>`/`<ept>` (1.2) or `<ph>`/`<pc>` with original data (2.0), so CAT tools
/// neither offer them for translation nor count them as words; the reader puts their original
/// text back, so a file reads back exactly as the string was.
public enum InlinePiece: Equatable, Sendable {
    /// Text to translate.
    case text(String)
    /// A code standing alone: a `{placeholder}`, an autolink `<https://…>`.
    case code(String, kind: CodeKind)
    /// Text between two codes: a link `[` … `](url)`, an image `![` … `](src)`, `**` … `**`.
    case span(start: String, end: String, kind: CodeKind, content: [InlinePiece])

    public enum CodeKind: String, Sendable {
        case placeholder, link, image, bold, italic
    }

    /// The string the pieces stand for.
    static func original(_ pieces: [InlinePiece]) -> String {
        pieces.reduce(into: "") { out, piece in
            switch piece {
            case .text(let text), .code(let text, _): out += text
            case .span(let start, let end, _, let content): out += start + original(content) + end
            }
        }
    }
}

/// Splits a string into `InlinePiece`s: `{placeholders}` everywhere (as `Placeholders` finds
/// them), and in markdown, inline links, images, URI autolinks and emphasis. cmark decides what
/// is markup: the scanner locates links, and when the destinations it found are not exactly
/// cmark's, in order, the links stay text (reference links, links in code spans); emphasis is
/// where cmark read it, checked against the delimiters there. So a code never splits what cmark
/// reads as one thing.
enum InlineCodeScanner {
    static func pieces(of text: String, isMarkdown: Bool) -> [InlinePiece] {
        let mayHoldCodes =
            UTF8Scan.contains(text, byte: UInt8(ascii: "{"))
            || (isMarkdown && MarkdownRenderer.mayHoldLinks(text))
            || (isMarkdown && UTF8Scan.contains(text, anyOf: UInt8(ascii: "*"), UInt8(ascii: "_")))
        guard mayHoldCodes else { return text.isEmpty ? [] : [.text(text)] }
        let characters = Array(text)
        var emphasis = isMarkdown ? Self.emphasis(in: text, characters: characters) : [:]
        for links in isMarkdown ? [true, false] : [false] {
            var scan = Scan(characters, links: links, emphasis: emphasis)
            let pieces = scan.pieces(0..<characters.count)
            guard !links || scan.destinations == MarkdownRenderer.links(in: text) else { continue }
            if scan.emphasisUsed == emphasis.count { return pieces }
            emphasis = [:]
            var plain = Scan(characters, links: links)
            return plain.pieces(0..<characters.count)
        }
        return [.text(text)]
    }

    /// Where each emphasis cmark found opens (character index), its delimiter's length and
    /// where its closing delimiter starts; empty when cmark's positions do not land on matching
    /// delimiters (they drift on continuation lines in lists and quotes).
    private static func emphasis(in text: String, characters: [Character]) -> [Int: (length: Int, close: Int)] {
        guard UTF8Scan.contains(text, anyOf: UInt8(ascii: "*"), UInt8(ascii: "_")), !UTF8Scan.contains(text, byte: 13),
            !UTF8Scan.contains(text, byte: 0)  // cmark's positions count a NUL as U+FFFD: 3 bytes
        else { return [:] }
        let positions = CommonMarkDocument(parsing: text).emphasisPositions()
        guard !positions.isEmpty else { return [:] }
        var lineStarts = [0]
        var characterAtByte: [Int: Int] = [:]
        var offset = 0
        for (index, character) in characters.enumerated() {
            characterAtByte[offset] = index
            offset += character.utf8.count
            if character == "\n" { lineStarts.append(offset) }
        }
        func byte(line: Int, column: Int) -> Int? {
            guard line >= 1, line <= lineStarts.count else { return nil }
            return lineStarts[line - 1] + column - 1
        }
        func isDelimiter(_ range: Range<Int>, _ delimiter: Character) -> Bool {
            range.upperBound <= characters.count && characters[range].allSatisfy { $0 == delimiter }
        }
        var found: [Int: (length: Int, close: Int)] = [:]
        var previous: (first: Int, last: Int, length: Int)?
        for position in positions {
            let length = position.isStrong ? 2 : 1
            guard var first = byte(line: position.start.line, column: position.start.column),
                var last = byte(line: position.end.line, column: position.end.column)
            else { return [:] }
            // `***a***`: cmark gives the inner emphasis the outer one's place.
            if let outer = previous, outer.first == first, outer.last == last {
                first += outer.length
                last -= outer.length
            }
            previous = (first, last, length)
            guard let open = characterAtByte[first], let close = characterAtByte[last - length + 1], open + length <= close,
                found[open] == nil
            else { return [:] }
            let delimiter = characters[open]
            guard delimiter == "*" || delimiter == "_", isDelimiter(open..<open + length, delimiter),
                isDelimiter(close..<close + length, delimiter)
            else { return [:] }
            found[open] = (length, close)
        }
        return found
    }

    private struct Scan {
        let characters: [Character]
        let links: Bool
        /// Emphasis by opening character index (`emphasis(in:characters:)`).
        let emphasis: [Int: (length: Int, close: Int)]
        /// Link and image destinations found, in document order (compared with cmark's).
        var destinations: [String] = []
        /// How many of `emphasis` became spans (all, unless a code span hid one).
        var emphasisUsed = 0

        init(_ characters: [Character], links: Bool, emphasis: [Int: (length: Int, close: Int)] = [:]) {
            self.characters = characters
            self.links = links
            self.emphasis = emphasis
        }

        mutating func pieces(_ range: Range<Int>) -> [InlinePiece] {
            var out: [InlinePiece] = []
            var text = ""
            func flush() {
                if !text.isEmpty { out.append(.text(text)) }
                text = ""
            }
            var index = range.lowerBound
            while index < range.upperBound {
                let character = characters[index]
                if character == "{", let end = placeholderEnd(from: index, limit: range.upperBound) {
                    flush()
                    out.append(.code(string(index..<end), kind: .placeholder))
                    index = end
                } else if links, character == "\\", index + 1 < range.upperBound, Self.escapable.contains(characters[index + 1]) {
                    text += string(index..<index + 2)
                    index += 2
                } else if links, character == "`" {
                    // A code span: its text stays text (placeholders in it still become codes).
                    let end =
                        codeSpanEnd(from: index, limit: range.upperBound) ?? index + run(of: "`", from: index, limit: range.upperBound)
                    for piece in Scan(Array(characters[index..<end]), links: false).placeholdersOnly() {
                        if case .text(let spanText) = piece {
                            text += spanText
                        } else {
                            flush()
                            out.append(piece)
                        }
                    }
                    index = end
                } else if links, character == "<", let end = autolinkEnd(from: index, limit: range.upperBound) {
                    flush()
                    destinations.append(string(index + 1..<end - 1))
                    out.append(.code(string(index..<end), kind: .link))
                    index = end
                } else if links, character == "[" || (character == "!" && next(index) == "["),
                    let link = inlineLink(from: index, limit: range.upperBound)
                {
                    flush()
                    destinations.append(link.destination)
                    let content = pieces(link.content)
                    let kind: InlinePiece.CodeKind = character == "!" ? .image : .link
                    out.append(
                        .span(
                            start: string(index..<link.content.lowerBound), end: string(link.content.upperBound..<link.end),
                            kind: kind, content: content))
                    index = link.end
                } else if let span = emphasis[index], span.close + span.length <= range.upperBound {
                    flush()
                    emphasisUsed += 1
                    let content = pieces(index + span.length..<span.close)
                    out.append(
                        .span(
                            start: string(index..<index + span.length), end: string(span.close..<span.close + span.length),
                            kind: span.length == 2 ? .bold : .italic, content: content))
                    index = span.close + span.length
                } else {
                    text.append(character)
                    index += 1
                }
            }
            flush()
            return out
        }

        private func placeholdersOnly() -> [InlinePiece] {
            var plain = Scan(characters, links: false)
            return plain.pieces(0..<characters.count)
        }

        private static let escapable: Set<Character> = ["\\", "[", "]", "(", ")", "`", "!", "<", ">", "*", "_"]

        private func next(_ index: Int) -> Character? { index + 1 < characters.count ? characters[index + 1] : nil }

        private func string(_ range: Range<Int>) -> String { String(characters[range]) }

        /// `{name}` as `Placeholders` reads it: letters, digits and `_`, at least one.
        private func placeholderEnd(from start: Int, limit: Int) -> Int? {
            var index = start + 1
            while index < limit, characters[index].isLetter || characters[index].isNumber || characters[index] == "_" { index += 1 }
            guard index > start + 1, index < limit, characters[index] == "}" else { return nil }
            return index + 1
        }

        private func run(of character: Character, from start: Int, limit: Int) -> Int {
            var index = start
            while index < limit, characters[index] == character { index += 1 }
            return index - start
        }

        /// The end of the code span opening at `start`: the next backtick run of the same length.
        private func codeSpanEnd(from start: Int, limit: Int) -> Int? {
            let length = run(of: "`", from: start, limit: limit)
            var index = start + length
            while index < limit {
                guard characters[index] == "`" else {
                    index += 1
                    continue
                }
                let closing = run(of: "`", from: index, limit: limit)
                if closing == length { return index + closing }
                index += closing
            }
            return nil
        }

        /// `<scheme:…>`: a URI autolink, as CommonMark defines it.
        private func autolinkEnd(from start: Int, limit: Int) -> Int? {
            var index = start + 1
            while index < limit, characters[index].isASCII,
                characters[index].isLetter || characters[index].isNumber
                    || "+.-".contains(characters[index])
            {
                index += 1
            }
            let scheme = index - start - 1
            guard (2...32).contains(scheme), characters[start + 1].isLetter, index < limit, characters[index] == ":" else { return nil }
            while index < limit, characters[index] != ">" {
                if characters[index] == "<" || characters[index].isWhitespace || characters[index].asciiValue.map({ $0 < 0x20 }) == true {
                    return nil
                }
                index += 1
            }
            return index < limit ? index + 1 : nil
        }

        /// `[text](destination "title")` or `![alt](…)` at `start`: where its text is, its
        /// destination (without `<>`), and where it ends.
        private func inlineLink(from start: Int, limit: Int) -> (content: Range<Int>, destination: String, end: Int)? {
            let open = characters[start] == "!" ? start + 1 : start
            var index = open + 1
            var depth = 1
            while index < limit {
                switch characters[index] {
                case "\\": index += 1
                case "`": index = (codeSpanEnd(from: index, limit: limit) ?? index + run(of: "`", from: index, limit: limit)) - 1
                case "[": depth += 1
                case "]": depth -= 1
                default: break
                }
                if depth == 0 { break }
                index += 1
            }
            let close = index
            guard depth == 0, close + 1 < limit, characters[close + 1] == "(" else { return nil }
            index = skipBlanks(close + 2, limit)
            let destination: String
            if index < limit, characters[index] == "<" {
                let from = index + 1
                while index < limit, characters[index] != ">", characters[index] != "\n" { index += characters[index] == "\\" ? 2 : 1 }
                guard index < limit, characters[index] == ">" else { return nil }
                destination = string(from..<index)
                index += 1
            } else {
                let from = index
                var parentheses = 0
                while index < limit, !characters[index].isWhitespace {
                    if characters[index] == "\\" {
                        index += 2
                        continue
                    }
                    if characters[index] == "(" { parentheses += 1 }
                    if characters[index] == ")" {
                        if parentheses == 0 { break }
                        parentheses -= 1
                    }
                    index += 1
                }
                guard index <= limit else { return nil }
                destination = string(from..<index)
            }
            index = skipBlanks(index, limit)
            if index < limit, let closing: Character = ["\"": "\"", "'": "'", "(": ")"][characters[index]] {
                index += 1
                while index < limit, characters[index] != closing { index += characters[index] == "\\" ? 2 : 1 }
                guard index < limit else { return nil }
                index = skipBlanks(index + 1, limit)
            }
            guard index < limit, characters[index] == ")" else { return nil }
            return (open + 1..<close, destination, index + 1)
        }

        private func skipBlanks(_ start: Int, _ limit: Int) -> Int {
            var index = start
            while index < limit, characters[index] == " " || characters[index] == "\t" || characters[index] == "\n" { index += 1 }
            return index
        }
    }
}
