/// Whether a YAML text holds comments, which a form save (the document written anew) would
/// drop: a `#` that starts a line's content or follows a space or tab, outside quotes and
/// outside block scalars (`|`, `>`), whose lines are text.
enum YAMLComments {
    static func present(in text: String) -> Bool {
        var blockIndent: Int?  // inside a block scalar: lines indented more than this are text
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let content = line.drop(while: { $0 == " " })
            let indent = line.count - content.count
            if let parent = blockIndent {
                if content.isEmpty || content.allSatisfy({ $0 == " " || $0 == "\r" }) || indent > parent { continue }
                blockIndent = nil
            }
            var quote: Character?
            var previous: Character = " "
            var sawComment = false
            for character in content {
                if let open = quote {
                    if character == open { quote = nil }
                } else if character == "\"" || character == "'",
                    previous == " " || previous == ":" || previous == "-" || previous == "[" || previous == "{" || previous == ","
                {
                    quote = character
                } else if character == "#", previous == " " || previous == "\t" {
                    sawComment = true
                    break
                }
                previous = character
            }
            if sawComment { return true }
            // `key: |`, `- >-`, `key: |2` and the like open a block scalar.
            let trimmed = content.trimmingSuffix { $0 == " " || $0 == "\r" }
            if let last = trimmed.split(separator: " ").last, let first = last.first, first == "|" || first == ">",
                last.dropFirst().allSatisfy({ $0 == "-" || $0 == "+" || $0.isNumber })
            {
                // Its lines are indented more than the key that opens it: after any `- `, the key's column.
                var rest = content
                var dashes = 0
                while rest.hasPrefix("- ") {
                    rest = rest.dropFirst(2)
                    dashes += 1
                }
                let opensItself = rest.first == "|" || rest.first == ">"
                blockIndent = indent + 2 * max(dashes - (opensItself ? 1 : 0), 0)
            }
        }
        return false
    }
}

extension Substring {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> Substring {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }
}
