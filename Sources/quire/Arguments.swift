import Foundation

/// A small argument reader in swift-argument-parser's shape (which we cannot depend on):
/// options `--name value` or `--name=value`, flags, and positionals, with usage errors (exit 2).
struct Arguments {
    private(set) var positionals: [String] = []
    private var options: [String: String] = [:]
    private var flags: Set<String> = []

    static let valueOptions: Set<String> = [
        "pages", "dist", "site", "format", "locale", "only", "keep", "reason", "poll", "quiet-window",
        "lock-timeout", "pages-count", "locales", "saves", "out", "layout", "sections", "markdown-bytes", "sizes",
        "serve", "serve-auth",
    ]

    init(_ arguments: [String]) throws(UsageError) {
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
            if Self.valueOptions.contains(name) {
                if value == nil {
                    guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                options[name] = value
            } else {
                guard value == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            }
        }
    }

    func option(_ name: String) -> String? { options[name] }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    var pages: String { options["pages"] ?? "pages" }
    var dist: String { options["dist"] ?? "dist" }
    var site: String? { options["site"] }

    func format() throws(UsageError) -> OutputFormat {
        switch options["format"] ?? "text" {
        case "text": return .text
        case "json": return .json
        case let other: throw UsageError("--format must be text or json, not '\(other)'")
        }
    }

    func number(_ name: String) throws(UsageError) -> Double? {
        guard let text = options[name] else { return nil }
        guard let value = Double(text.hasSuffix("ms") ? String(text.dropLast(2)) : text.hasSuffix("s") ? String(text.dropLast()) : text) else {
            throw UsageError("--\(name) must be a number, not '\(text)'")
        }
        return text.hasSuffix("ms") ? value / 1000 : value
    }

    /// Unknown flags are usage errors; `known` lists the ones a command accepts.
    func rejectUnknown(flags known: Set<String>) throws(UsageError) {
        if let unknown = flags.subtracting(known).sorted().first { throw UsageError("unknown option --\(unknown)") }
    }
}

enum OutputFormat { case text, json }

struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
