/// A command's arguments read against its `CommandSpec`, in swift-argument-parser's shape (which
/// we cannot depend on): `--name value` or `--name=value`, flags, and operands. An option the
/// table does not list, a missing value or a missing required option is a usage error (exit 2).
package struct Arguments {
    package let spec: CommandSpec
    /// The subcommand's word (`export` of `quire l10n export`), when there is one.
    package private(set) var subcommand: String?
    package private(set) var positionals: [String] = []
    private var options: [String: String] = [:]
    private var flags: Set<String> = []
    private var readsUnlisted = false

    /// What a command line asks for: a command to run, or its help.
    package enum Request {
        case run(Arguments)
        case help(String)
    }

    /// Reads the arguments after the command's name. `--help` or `-h` anywhere asks for help,
    /// whatever else is there.
    package static func parse(_ arguments: [String], for spec: CommandSpec) throws(UsageError) -> Request {
        var spec = spec
        var rest = arguments
        var subcommand: String?
        if let first = rest.first, let chosen = spec.subcommands.first(where: { $0.word == first }) {
            spec = chosen
            subcommand = first
            rest.removeFirst()
        } else if !spec.subcommands.isEmpty && !spec.runsAlone && !rest.contains(where: Self.asksForHelp) {
            let names = spec.subcommands.map(\.word)
            let given = rest.first.map { "; '\($0)' is not one" } ?? ""
            throw UsageError("\(spec.invocation) needs a subcommand: \(names.joined(separator: ", "))\(given)", spec: spec)
        }
        if rest.contains(where: Self.asksForHelp) { return .help(spec.help) }
        var parsed = try Arguments(rest, spec: spec)
        parsed.subcommand = subcommand
        return .run(parsed)
    }

    private static func asksForHelp(_ argument: String) -> Bool { argument == "--help" || argument == "-h" }

    init(_ arguments: [String], spec: CommandSpec) throws(UsageError) {
        self.spec = spec
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = spec.option(name) else {
                throw UsageError("\(spec.invocation) does not take --\(name)", spec: spec)
            }
            if option.isFlag {
                guard value == nil else { throw UsageError("--\(name) takes no value", spec: spec) }
                flags.insert(name)
                continue
            }
            if value == nil {
                guard index < arguments.count else { throw UsageError("--\(name) needs a value: \(option.spelled)", spec: spec) }
                value = arguments[index]
                index += 1
            }
            options[name] = value
        }
        if let missing = spec.options.first(where: { $0.isRequired && options[$0.name] == nil }) {
            throw UsageError("\(spec.invocation) needs \(missing.spelled)", spec: spec)
        }
    }

    /// The option's value: as given, else the table's default; nil when neither.
    package func value(_ name: OptionName) -> String? {
        let option = listed(name.text)
        if let given = options[name.text] { return given }
        if case .value(let value)? = option?.absent { return value }
        return nil
    }

    /// Whether the option was given (its default does not count).
    package func isGiven(_ name: OptionName) -> Bool {
        _ = listed(name.text)
        return options[name.text] != nil
    }

    package func flag(_ name: FlagName) -> Bool {
        _ = listed(name.text)
        return flags.contains(name.text)
    }

    /// The same arguments, read by code that serves several commands (`quire-bench`'s options):
    /// an option this command's table does not list reads as absent.
    package func sharedByCommands() -> Arguments {
        var shared = self
        shared.readsUnlisted = true
        return shared
    }

    /// The table's entry of an option a command reads. Reading one its table does not list is a
    /// mistake in the command, which no command line could ever set: tests (debug builds) stop on it.
    private func listed(_ name: String) -> OptionSpec? {
        let option = spec.option(name)
        assert(option != nil || readsUnlisted, "\(spec.invocation) reads --\(name), which its options table does not list")
        return option
    }

    package var pages: String { value(.pages) ?? "pages" }
    package var dist: String { value(.dist) ?? "dist" }
    package var site: String? { value(.site) }

    package func format() throws(UsageError) -> OutputFormat {
        switch value(.format) ?? "text" {
        case "text": return .text
        case "json": return .json
        case let other: throw UsageError("--format must be text or json, not '\(other)'", spec: spec)
        }
    }

    /// Seconds: `2`, `2s` or `500ms`.
    package func seconds(_ name: OptionName) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        let milliseconds = text.hasSuffix("ms")
        let digits = milliseconds ? String(text.dropLast(2)) : text.hasSuffix("s") ? String(text.dropLast()) : text
        guard let value = Double(digits) else { throw UsageError("\(name) must be a number, not '\(text)'", spec: spec) }
        return milliseconds ? value / 1000 : value
    }
}

package enum OutputFormat { case text, json }

/// A command line that cannot be run as written: exit 2, with a pointer to the help that says how.
package struct UsageError: Error {
    package var message: String
    /// Where to read more: the command's `--help` (nil: the program's).
    package var hint: String?

    package init(_ message: String, spec: CommandSpec? = nil) {
        self.message = message
        hint = spec.map { "(\($0.invocation) --help lists its options)" }
    }
}
