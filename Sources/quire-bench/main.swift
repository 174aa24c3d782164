import Foundation
import QuireCommandLine
import QuireCore

// `quire-bench`: measures the `quire` built next to it on generated sites (bench/README.md).

func run(_ arguments: [String]) -> ExitCode {
    do {
        switch try Arguments.parse(arguments, for: BenchCommand.spec) {
        case .help(let text):
            Console.shared.out(text)
            return .ok
        case .run(let parsed):
            return try BenchCommand(options: try BenchOptions(parsed)).run()
        }
    } catch let error as UsageError {
        Console.shared.error("quire-bench: error: \(error.message)\n\(error.hint ?? "(quire-bench --help lists its options)")")
        return .usage
    } catch let failure as CommandFailure {
        Console.shared.error("quire-bench: error: \(failure.message)")
        return failure.code
    } catch {
        Console.shared.error("quire-bench: error: \(error)")
        return .operational
    }
}

// The in-process builds parse PO files in children started from this program.
POFileParser.runChildIfAsked(CommandLine.arguments)
exit(run(Array(CommandLine.arguments.dropFirst())).rawValue)
