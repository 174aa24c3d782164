public import QuireModel

/// One finding about the content, printed as `path:line:col: error: key.path: message`,
/// the form editors, problem matchers and CI annotations parse.
public struct Diagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Comparable {
        case error, warning, note

        private var rank: Int { self == .error ? 2 : self == .warning ? 1 : 0 }
        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    public var severity: Severity
    /// The file as the user named it (relative to where they ran quire when possible).
    public var file: String
    public var position: SourcePosition
    /// Where in the page the problem is: `sections[2].items[0].price`; empty for the whole file.
    public var keyPath: String
    public var message: String

    public init(_ severity: Severity, file: String, at position: SourcePosition = .start, keyPath: String = "", _ message: String) {
        self.severity = severity
        self.file = file
        self.position = position
        self.keyPath = keyPath
        self.message = message
    }

    public static func error(_ file: String, at position: SourcePosition = .start, keyPath: String = "", _ message: String) -> Diagnostic {
        Diagnostic(.error, file: file, at: position, keyPath: keyPath, message)
    }

    public static func warning(_ file: String, at position: SourcePosition = .start, keyPath: String = "", _ message: String) -> Diagnostic
    {
        Diagnostic(.warning, file: file, at: position, keyPath: keyPath, message)
    }

    public var isError: Bool { severity == .error }

    public var description: String {
        let subject = keyPath.isEmpty ? message : "\(keyPath): \(message)"
        return "\(file):\(position.line):\(position.column): \(severity.rawValue): \(subject)"
    }

    public var json: JSONValue {
        [
            "file": .string(file), "line": .integer(position.line), "column": .integer(position.column),
            "severity": .string(severity.rawValue), "key_path": .string(keyPath), "message": .string(message),
            "text": .string(description),
        ]
    }
}

extension Array where Element == Diagnostic {
    public var hasErrors: Bool { contains(where: \.isError) }
}
