/// Finds the line where each PO entry starts (its `msgctxt`, else its `msgid`), because
/// libgettextpo tells where a message came from in the program, not where it is in the PO file.
/// Obsolete (`#~`) entries are comments here, as libgettextpo's messages are matched without them.
enum POEntryLocator {
    static func entryStartLines(_ bytes: [UInt8]) -> [Int] {
        var starts: [Int] = []
        var contextPending = false
        var lineNumber = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let text = line.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            if text.starts(with: Array("msgctxt".utf8)) {
                starts.append(lineNumber)
                contextPending = true
            } else if isKeyword("msgid", text) {
                if !contextPending { starts.append(lineNumber) }
                contextPending = false
            } else if text.first.map({ $0 != UInt8(ascii: "#") && $0 != UInt8(ascii: "\"") }) ?? false {
                contextPending = false
            }
        }
        return starts
    }

    /// `msgid` followed by a blank or a quote (so not `msgid_plural`).
    private static func isKeyword(_ keyword: String, _ text: ArraySlice<UInt8>.SubSequence) -> Bool {
        let word = Array(keyword.utf8)
        guard text.starts(with: word) else { return false }
        let next = text.dropFirst(word.count).first
        return next == UInt8(ascii: " ") || next == UInt8(ascii: "\t") || next == UInt8(ascii: "\"")
    }
}
