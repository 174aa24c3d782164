/// Reading typed values out of a `SourceNode`, recording a diagnostic for each wrong kind.
/// Shared by `site.yaml`, vocabulary files and pages so every file reports problems alike.
struct SourceNodeReader {
    let file: String
    var diagnostics: [Diagnostic] = []

    init(file: String) { self.file = file }

    mutating func error(_ node: SourceNode, _ keyPath: String, _ message: String) {
        diagnostics.append(.error(file, at: node.position, keyPath: keyPath, message))
    }

    mutating func warning(_ node: SourceNode, _ keyPath: String, _ message: String) {
        diagnostics.append(.warning(file, at: node.position, keyPath: keyPath, message))
    }

    // Key paths are autoclosures: they become strings only for a diagnostic.

    mutating func string(_ node: SourceNode?, _ keyPath: @autoclosure () -> String) -> String? {
        guard let node else { return nil }
        if let text = node.string { return text }
        error(node, keyPath(), "must be text, found \(node.kindDescription)")
        return nil
    }

    mutating func integer(_ node: SourceNode?, _ keyPath: @autoclosure () -> String, minimum: Int = 0) -> Int? {
        guard let node else { return nil }
        guard case .integer(let number) = node.value else {
            error(node, keyPath(), "must be a whole number, found \(node.kindDescription)")
            return nil
        }
        guard number >= minimum else {
            error(node, keyPath(), "must be at least \(minimum), found \(number)")
            return nil
        }
        return number
    }

    mutating func bool(_ node: SourceNode?, _ keyPath: @autoclosure () -> String) -> Bool? {
        guard let node else { return nil }
        if case .bool(let flag) = node.value { return flag }
        error(node, keyPath(), "must be true or false, found \(node.kindDescription)")
        return nil
    }

    mutating func stringList(_ node: SourceNode?, _ keyPath: @autoclosure () -> String) -> [String]? {
        guard let node else { return nil }
        guard let items = node.array else {
            error(node, keyPath(), "must be a list of text, found \(node.kindDescription)")
            return nil
        }
        var result: [String] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            if let text = string(item, "\(keyPath())[\(index)]") { result.append(text) }
        }
        return result
    }

    mutating func mapping(_ node: SourceNode?, _ keyPath: @autoclosure () -> String) -> [SourceMember]? {
        guard let node else { return nil }
        if let members = node.members { return members }
        error(node, keyPath(), "must be a mapping, found \(node.kindDescription)")
        return nil
    }

    /// Warns about keys a mapping should not have; `where` names the thing for the message.
    mutating func warnUnknownKeys(_ members: [SourceMember], allowed: Set<String>, keyPath: String, where place: String) {
        warnUnknownKeys(members, isAllowed: { allowed.contains($0) }, allowed: { allowed }, keyPath: keyPath, where: place)
    }

    /// The same, for callers whose allowed keys are not a set yet: `isAllowed` answers for each
    /// key, and the set (for the message's hint) is built only when a key is unknown.
    mutating func warnUnknownKeys(
        _ members: [SourceMember], isAllowed: (String) -> Bool, allowed: () -> Set<String>,
        keyPath: String, where place: @autoclosure () -> String
    ) {
        for member in members where !isAllowed(member.key) {
            let allowed = allowed()
            let path = keyPath.isEmpty ? member.key : "\(keyPath).\(member.key)"
            let hint =
                Self.closest(to: member.key, in: allowed).map { "did you mean '\($0)'?" }
                ?? "known keys: \(allowed.sorted().joined(separator: ", "))"
            diagnostics.append(
                .warning(
                    file, at: member.keyPosition, keyPath: path,
                    "unknown key '\(member.key)' in \(place()) is ignored; \(hint)"))
        }
    }

    /// The allowed key within two edits of a typo, if there is one.
    static func closest(to word: String, in candidates: Set<String>) -> String? {
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var previous = Array(0...b.count)
            for (i, x) in a.enumerated() {
                var current = [i + 1]
                for (j, y) in b.enumerated() {
                    current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
                }
                previous = current
            }
            return previous[b.count]
        }
        let scored = candidates.map { ($0, distance(Array(word), Array($0))) }.filter { $0.1 <= 2 }
        return scored.min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
    }
}

/// Identifiers of sections, items, sites and page-id segments: `[a-z0-9_-]+`.
public enum Identifier {
    public static func isValid(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
    }

    public static let rule = "use lower-case letters, digits, '-' and '_'"
}
