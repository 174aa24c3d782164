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

/// Reads a page source (JSON or YAML) into `SourceNode`s that remember where every value was
/// written. The checks common to both formats run first, over the raw bytes: text that is not
/// UTF-8, NUL bytes and empty files are refused here, so each format reader sees valid text.
public enum SourceParser {
    /// Parses a whole file. Throws the first error as a positioned diagnostic for `file`.
    ///
    /// YAML is read before the text check, which runs only when the reading fails: libyaml's
    /// reader (or `YAMLReaderCheck` in its place) checks every byte (UTF-8 as RFC 3629, no NUL
    /// or other control characters), so a text it reads to the end passes the check, and a failure is reported
    /// as the check-first order reports it (`parseCheckingFirst`; `FastPathTests` compare).
    public static func parse(_ bytes: [UInt8], format: SourceFormat, file: String, limits: SourceLimits = .default) throws(Diagnostic)
        -> SourceNode
    {
        guard format == .yaml else { return try parseCheckingFirst(bytes, format: format, file: file, limits: limits) }
        let root = bytes.withUnsafeBufferPointer { buffer in
            try? YAMLSourceReader.read(
                UnsafeBufferPointer(rebasing: buffer[SourceTextCheck.byteOrderMarkLength(buffer)...]), file: file, limits: limits)
        }
        if let root { return root }
        return try parseCheckingFirst(bytes, format: format, file: file, limits: limits)
    }

    /// `parse` with the text check first, for every format.
    static func parseCheckingFirst(_ bytes: [UInt8], format: SourceFormat, file: String, limits: SourceLimits = .default)
        throws(Diagnostic) -> SourceNode
    {
        try bytes.withUnsafeBufferPointer { (buffer) throws(Diagnostic) -> SourceNode in
            let start = SourceTextCheck.byteOrderMarkLength(buffer)
            try SourceTextCheck.validate(buffer, from: start, file: file)
            switch format {
            case .json:
                return try JSONSourceReader.read(buffer, from: start, file: file, limits: limits)
            case .yaml:
                let text = UnsafeBufferPointer(rebasing: buffer[start...])
                return try YAMLSourceReader.read(text, file: file, limits: limits)
            }
        }
    }
}
