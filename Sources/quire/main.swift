import Foundation
import QuireCommandLine
import QuireCore

// `quire`: parses arguments against the command's option table, runs one command, prints, and
// picks the exit code. The work is in QuireCore and QuireWatch.

/// Every command, in the order `quire --help` lists them.
let commands: [CommandSpec] =
    [BuildCommand.buildSpec, BuildCommand.checkSpec, WatchCommand.spec] + OperationsCommand.specs
    + [PushCommand.spec, L10nCommand.spec, SchemaCommand.spec]

let usage = """
    usage: quire <command> [options]

    commands:
    \(commands.map { "  " + $0.name.padding(toLength: 10, withPad: " ", startingAt: 0) + " " + $0.abstract }.joined(separator: "\n"))

    `quire <command> --help` lists a command's options, with their units and defaults.
    """

func run(_ arguments: [String]) -> ExitCode {
    guard var command = arguments.first else {
        Console.shared.error(usage)
        return .usage
    }
    var rest = Array(arguments.dropFirst())
    if command == "--help" || command == "-h" || command == "help" {
        // `quire help build` is `quire build --help`.
        guard let named = rest.first else {
            Console.shared.out(usage)
            return .ok
        }
        command = named
        rest = ["--help"]
    }
    // The command whose --help a usage error points to, once known.
    var running: CommandSpec?
    do {
        guard let spec = commands.first(where: { $0.name == command }) else { throw UsageError("unknown command '\(command)'") }
        running = spec
        let parsed: Arguments
        switch try Arguments.parse(rest, for: spec) {
        case .help(let text):
            Console.shared.out(text)
            return .ok
        case .run(let arguments): parsed = arguments
        }
        running = parsed.spec
        switch command {
        case "build": return try BuildCommand(arguments: parsed, publish: true).run()
        case "check": return try BuildCommand(arguments: parsed, publish: false).run()
        case "schema": return try SchemaCommand(arguments: parsed).run()
        case "watch": return try WatchCommand(arguments: parsed).run()
        case "l10n": return try L10nCommand(arguments: parsed).run()
        case "push": return try PushCommand(arguments: parsed).run()
        default: return try OperationsCommand(name: command, arguments: parsed).run()
        }
    } catch let error as UsageError {
        let hint = error.hint ?? running.map { "(\($0.invocation) --help lists its options)" } ?? "(quire --help lists the commands)"
        Console.shared.error("quire: error: \(error.message)\n\(hint)")
        return .usage
    } catch let failure as CommandFailure {
        Console.shared.error("quire: error: \(failure.message)")
        return failure.code
    } catch {
        Console.shared.error("quire: error: \(error)")
        return .operational
    }
}

// The PO parser's child process (libgettextpo's fatal-error handler must not return, so PO files
// are parsed in a child that may die without taking a watcher with it).
POFileParser.runChildIfAsked(CommandLine.arguments)

exit(run(Array(CommandLine.arguments.dropFirst())).rawValue)
