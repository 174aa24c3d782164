/// One option of a command, as the parser accepts it and `--help` prints it.
package struct OptionSpec: Sendable {
    /// What the command does when the option is not given.
    package enum Absent: Sendable, Equatable {
        /// This value, as if it had been typed (the parser hands it out).
        case value(String)
        /// Nothing is handed out; the text says what that means ("every site").
        case meaning(String)
        /// A usage error: the command cannot run without it.
        case required
    }

    /// Without the dashes: `lock-timeout` (an `OptionName`'s or a `FlagName`'s text).
    package private(set) var name: String
    /// The value's placeholder (`DIR`, `SECONDS`, `text|json`); nil for a flag.
    package var placeholder: String?
    /// What the value counts (`seconds`, `pages`); nil when it is a name or a path.
    package var unit: String?
    package var absent: Absent
    package var help: String

    package init(_ name: OptionName, _ placeholder: String, unit: String? = nil, absent: Absent, help: String) {
        self.init(text: name.text, placeholder, unit: unit, absent: absent, help: help)
    }

    private init(text name: String, _ placeholder: String?, unit: String? = nil, absent: Absent, help: String) {
        self.name = name
        self.placeholder = placeholder
        self.unit = unit
        self.absent = absent
        self.help = help
    }

    /// An option whose absence means `defaultValue`.
    package init(_ name: OptionName, _ placeholder: String, unit: String? = nil, default defaultValue: String, help: String) {
        self.init(name, placeholder, unit: unit, absent: .value(defaultValue), help: help)
    }

    /// A flag: off unless given.
    package static func flag(_ name: FlagName, help: String) -> OptionSpec {
        OptionSpec(text: name.text, nil, absent: .meaning("off"), help: help)
    }

    package var isFlag: Bool { placeholder == nil }
    package var isRequired: Bool { absent == .required }

    /// `--lock-timeout SECONDS`, or `--timings`.
    package var spelled: String { "--\(name)" + (placeholder.map { " \($0)" } ?? "") }

    /// The end of its help line: `(seconds; default 30)`.
    var unitAndDefault: String {
        let absence: String
        switch absent {
        case .value(let value): absence = "default \(value)"
        case .meaning(let text): absence = "default: \(text)"
        case .required: absence = "required"
        }
        return "(" + (unit.map { "\($0); " } ?? "") + absence + ")"
    }
}

/// A command: its name, what it does, the options it takes (the one table the parser and
/// `--help` both read), its operands and one example. A command with subcommands (`l10n`) has a
/// table per subcommand.
package struct CommandSpec: Sendable {
    /// The program (`quire`, `quire-bench`) and the command's words after it: `l10n export`.
    package var program: String
    package var name: String
    package var abstract: String
    package var options: [OptionSpec]
    /// What follows the options in the synopsis: `[VERSION] DIR`.
    package var operands: String
    package var example: String
    package var subcommands: [CommandSpec]
    /// Whether the command runs without a subcommand (`quire-bench` does, `quire l10n` does not).
    package var runsAlone: Bool

    package init(
        program: String = "quire", _ name: String, abstract: String, options: [OptionSpec], operands: String = "",
        example: String, subcommands: [CommandSpec] = [], runsAlone: Bool = true
    ) {
        self.program = program
        self.name = name
        self.abstract = abstract
        self.options = options
        self.operands = operands
        self.example = example
        self.subcommands = subcommands
        self.runsAlone = subcommands.isEmpty || runsAlone
    }

    package func option(_ name: String) -> OptionSpec? { options.first { $0.name == name } }

    /// The last word of the name: `export` of `l10n export`.
    package var word: String { String(name.split(separator: " ").last ?? "") }

    /// `quire build`, `quire l10n export`, `quire-bench`.
    package var invocation: String { name.isEmpty ? program : "\(program) \(name)" }

    /// `quire build [--pages DIR] ... OPERANDS`, folded to lines of at most `width` columns.
    package func synopsis(width: Int = 100) -> String {
        let words = options.map { $0.isRequired ? $0.spelled : "[\($0.spelled)]" } + (operands.isEmpty ? [] : [operands])
        let lead = "usage: \(invocation)"
        var lines = [lead]
        for word in words {
            if lines[lines.count - 1].count + 1 + word.count > width {
                lines.append(String(repeating: " ", count: lead.count))
            }
            lines[lines.count - 1] += " " + word
        }
        return lines.joined(separator: "\n")
    }

    /// What `--help` prints: synopsis, what it does, every option with its unit and default,
    /// and an example. A command with subcommands prints each one's.
    package var help: String {
        var text: [String] = []
        if runsAlone { text.append(synopsis()) }
        for subcommand in subcommands { text.append(subcommand.synopsis()) }
        text.append("\n" + abstract)
        if !options.isEmpty { text.append("\noptions:\n" + Self.optionLines(options)) }
        for subcommand in subcommands {
            text.append("\n\(subcommand.word): \(subcommand.abstract)")
            if !subcommand.options.isEmpty { text.append(Self.optionLines(subcommand.options)) }
        }
        let examples = ([example] + subcommands.map(\.example)).filter { !$0.isEmpty }
        text.append("\nexample\(examples.count == 1 ? "" : "s"):\n" + examples.map { "  \($0)" }.joined(separator: "\n"))
        return text.joined(separator: "\n")
    }

    /// `  --lock-timeout SECONDS  wait this long for the site's lock (seconds; default 30)`, the help
    /// folded under itself to lines of at most `lineWidth` columns.
    static func optionLines(_ options: [OptionSpec], lineWidth: Int = 100) -> String {
        let column = min((options.map(\.spelled.count).max() ?? 0) + 2, 30) + 2
        let indent = String(repeating: " ", count: column)
        return options.map { option in
            let lead = "  \(option.spelled)"
            var lines = lead.count + 2 > column ? [lead, indent] : [lead + String(repeating: " ", count: column - lead.count)]
            // The unit and default stay on one line when they fit on one.
            let tail = option.unitAndDefault
            let tailWords = tail.count <= lineWidth - column ? [Substring(tail)] : tail.split(separator: " ")
            let words = option.help.split(separator: " ") + tailWords
            for word in words {
                let line = lines[lines.count - 1]
                if line.count > column && line.count + 1 + word.count > lineWidth {
                    lines.append(indent + word)
                } else {
                    lines[lines.count - 1] += (line.count > column ? " " : "") + word
                }
            }
            return lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
