/// Turns byte offsets into `line:column` (1-based, columns in Unicode scalars). It walks forward
/// from the last answer, so a parser asking in file order pays for each byte once, even on a
/// long single-line (minified) file.
struct SourcePositionTracker {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let origin: Int
    private var offset: Int
    private var line = 1
    private var column = 1

    /// `origin` is where line 1, column 1 starts (after a byte-order mark).
    init(_ bytes: UnsafeBufferPointer<UInt8>, origin: Int = 0) {
        self.bytes = bytes
        self.origin = origin
        self.offset = origin
    }

    mutating func position(at target: Int) -> SourcePosition {
        if target < offset { (offset, line, column) = (origin, 1, 1) }
        let end = min(target, bytes.count)
        var index = offset
        while index < end {
            let byte = bytes[index]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte == 0x0D {
                // A lone CR breaks the line (as in YAML); before an LF, the LF does.
                if index + 1 >= bytes.count || bytes[index + 1] != 0x0A {
                    line += 1
                    column = 1
                }
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        offset = end
        return SourcePosition(line: line, column: column)
    }
}
