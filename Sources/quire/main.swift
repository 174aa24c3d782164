import Foundation
import QuireCore

// `quire`: parses arguments, runs one command, prints, and picks the exit code. The work is in
// QuireCore and QuireWatch.

let usage = """
    usage: quire <command> [--pages DIR] [--dist DIR] [--site NAME] [--format text|json] ...

    commands:
      build      \(BuildCommand.buildAbstract)
      check      \(BuildCommand.checkAbstract)
      watch      \(WatchCommand.abstract)
      versions   List a site's versions.
      diff       Show what changed between two versions.
      rollback   Point current at an earlier version and pin it there.
      unpin      Let the newest version go live again.
      verify     Re-hash a version against its manifest.
      gc         Remove old versions beyond --keep N.
      export     Write a version as plain files, without symbolic links.
      push       \(PushCommand.abstract)
      l10n       Translation export, import and status.
      schema     \(SchemaCommand.abstract)
      bench      Measure build and publish speed on generated sites.
    """

func run(_ arguments: [String]) -> ExitCode {
    guard let command = arguments.first else {
        Console.shared.error(usage)
        return .usage
    }
    if command == "--help" || command == "-h" || command == "help" {
        Console.shared.out(usage)
        return .ok
    }
    do {
        let parsed = try Arguments(Array(arguments.dropFirst()))
        switch command {
        case "build": return try BuildCommand(arguments: parsed, publish: true).run()
        case "check": return try BuildCommand(arguments: parsed, publish: false).run()
        case "schema": return try SchemaCommand(arguments: parsed).run()
        case "watch": return try WatchCommand(arguments: parsed).run()
        case "l10n": return try L10nCommand(arguments: parsed).run()
        case "versions", "diff", "rollback", "unpin", "verify", "gc", "export":
            return try OperationsCommand(name: command, arguments: parsed).run()
        case "push": return try PushCommand(arguments: parsed).run()
        case "bench": return try BenchCommand(arguments: Array(arguments.dropFirst())).run()
        default:
            throw UsageError("unknown command '\(command)'")
        }
    } catch let error as UsageError {
        Console.shared.error("quire: error: \(error.message)\n(quire --help lists the commands)")
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
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == POFileParser.childArgument {
    POFileParser.runChildMain(file: CommandLine.arguments[2])
}

exit(run(Array(CommandLine.arguments.dropFirst())).rawValue)
