import QuireModel

/// The inlines of one paragraph, heading, emphasis or link, as they are built: adjacent text
/// (text nodes, soft breaks, text left by removed links) becomes one `text` inline.
struct InlineRun {
    private var inlines: [JSONValue] = []
    private var pendingText = ""

    mutating func appendText(_ text: String) {
        pendingText += text
    }

    mutating func append(_ inline: JSONValue) {
        flushText()
        inlines.append(inline)
    }

    var isEmpty: Bool { inlines.isEmpty && pendingText.isEmpty }

    mutating func finish() -> [JSONValue] {
        flushText()
        return inlines
    }

    private mutating func flushText() {
        guard !pendingText.isEmpty else { return }
        inlines.append(["type": "text", "text": .string(pendingText)])
        pendingText = ""
    }
}
