/// The name of an option that takes a value (`--pages DIR`). Each is declared once, as a
/// `static let`, and both the table that lists the option (its help, the parser) and the code
/// that reads it use that constant: a misspelled name does not compile. Not expressible by a
/// string literal, so a name cannot be typed at the place it is read.
package struct OptionName: Hashable, Sendable, CustomStringConvertible {
    /// Without the dashes: `lock-timeout`.
    package let text: String
    package init(_ text: String) { self.text = text }
    /// `--lock-timeout`, as messages name it.
    package var description: String { "--\(text)" }
}

/// The name of a flag (`--no-preview`), declared once as `OptionName` is.
package struct FlagName: Hashable, Sendable, CustomStringConvertible {
    package let text: String
    package init(_ text: String) { self.text = text }
    package var description: String { "--\(text)" }
}

/// Options that `Arguments` itself reads for every command that lists them.
extension OptionName {
    package static let pages = OptionName("pages")
    package static let dist = OptionName("dist")
    package static let site = OptionName("site")
    package static let format = OptionName("format")
    package static let lockTimeout = OptionName("lock-timeout")
    package static let out = OptionName("out")
}

extension FlagName {
    package static let noPreview = FlagName("no-preview")
}
