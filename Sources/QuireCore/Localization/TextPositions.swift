/// Turns byte offsets and parser-reported places into 1-based line and character columns, for
/// formats whose parsers do not report where things start.
struct TextPositions {
    private let bytes: [UInt8]
    /// Byte offset where each line starts.
    private let lineStarts: [Int]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") { starts.append(offset + 1) }
        lineStarts = starts
    }

    var lineCount: Int { lineStarts.count }

    /// The position of a byte offset, the column counted in characters.
    func position(ofByte offset: Int) -> SourcePosition {
        let clamped = max(0, min(offset, bytes.count))
        var lineIndex = 0
        var low = 0
        var high = lineStarts.count - 1
        while low <= high {
            let middle = (low + high) / 2
            if lineStarts[middle] <= clamped {
                lineIndex = middle
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        let prefix = bytes[lineStarts[lineIndex]..<clamped]
        let column = String(decoding: prefix, as: UTF8.self).count + 1
        return SourcePosition(line: lineIndex + 1, column: column)
    }

    /// The byte offset of a 1-based line and character column, or nil outside the text.
    func byteOffset(line: Int, column: Int) -> Int? {
        guard line >= 1, line <= lineStarts.count else { return nil }
        let start = lineStarts[line - 1]
        let end = line < lineStarts.count ? lineStarts[line] : bytes.count
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        var offset = start
        for (index, character) in text.enumerated() {
            if index == column - 1 { return offset }
            offset += character.utf8.count
        }
        return min(offset, bytes.count)
    }

    /// Where the markup tag that ends at (or around) `line:column` starts: libxml2 reports the
    /// position of a start tag's `>`, people want the `<`.
    func tagStart(endingAt line: Int, column: Int) -> SourcePosition {
        guard let end = byteOffset(line: line, column: column) else { return SourcePosition(line: max(line, 1), column: max(column, 1)) }
        var offset = min(end, bytes.count - 1)
        while offset >= 0 {
            if bytes[offset] == UInt8(ascii: "<") { return position(ofByte: offset) }
            offset -= 1
        }
        return SourcePosition(line: line, column: column)
    }

    /// The first place `needle` (ASCII, matched case-insensitively) occurs.
    func firstOccurrence(ofCaseInsensitive needle: String) -> Int? {
        let pattern = Array(needle.lowercased().utf8)
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return nil }
        outer: for start in 0...(bytes.count - pattern.count) {
            for (index, expected) in pattern.enumerated() {
                var byte = bytes[start + index]
                if byte >= 65 && byte <= 90 { byte += 32 }
                if byte != expected { continue outer }
            }
            return start
        }
        return nil
    }
}
