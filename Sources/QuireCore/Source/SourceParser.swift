// STUB: replaced by the source-loading work. Signatures are the contract.
public enum SourceFormat: String, Sendable {
    case json, yaml

    public init?(pathExtension: String) {
        switch pathExtension {
        case "json": self = .json
        case "yaml", "yml": self = .yaml
        default: return nil
        }
    }
}

public enum SourceParser {
    /// Parses a whole file. Throws the first error as a positioned diagnostic for `file`.
    public static func parse(_ bytes: [UInt8], format: SourceFormat, file: String, limits: SourceLimits = .default) throws(Diagnostic) -> SourceNode {
        fatalError("stub")
    }
}
