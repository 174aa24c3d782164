import Foundation
import QuireTestSupport
import Testing

/// Every command explains itself: `--help` prints its synopsis, options (with units and
/// defaults) and an example; an option it does not take is a usage error naming it; and README's
/// synopsis lists the options `--help` lists, command by command.
@Suite struct CommandHelpTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    static func quire(_ arguments: [String]) throws -> CommandRun { try CommandRun.run(try QuireBinary.path(), arguments) }

    /// The commands `quire --help` lists.
    static func commands() throws -> [String] {
        let help = try quire(["--help"])
        #expect(help.status == 0)
        let listed = help.stdout.components(separatedBy: "commands:\n").last ?? ""
        return listed.split(separator: "\n").prefix { $0.hasPrefix("  ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// The options a `--help` text lists: its lines that start with `  --name`.
    static func options(inHelp text: String) -> Set<String> {
        Set(
            text.split(separator: "\n").compactMap { line in
                line.hasPrefix("  --") ? String(line.dropFirst(4).prefix { $0 != " " }) : nil
            })
    }

    @Test func quireHelpListsTheUsersCommandsOnly() throws {
        let commands = try Self.commands()
        #expect(commands.count >= 13, "\(commands)")
        for expected in ["build", "check", "watch", "versions", "rollback", "l10n", "schema", "push"] {
            #expect(commands.contains(expected), "quire --help does not list \(expected)")
        }
        #expect(!commands.contains("bench"), "the benchmark is quire-bench, not a user's command")
        #expect(try Self.quire(["bench"]).status == 2)
    }

    @Test func everyCommandsHelpHasSynopsisOptionsWithDefaultsAndAnExample() throws {
        for command in try Self.commands() {
            for spelling in ["--help", "-h"] {
                let run = try Self.quire([command, spelling])
                #expect(run.status == 0, "quire \(command) \(spelling): exit \(run.status)\n\(run.stderr)")
                #expect(run.stdout.hasPrefix("usage: quire \(command)"), "quire \(command) \(spelling):\n\(run.stdout)")
                #expect(run.stdout.contains("\nexample"), "quire \(command) --help has no example")
                // An option's line, and the indented ones its help is folded to.
                let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
                let options = lines.indices.filter { lines[$0].hasPrefix("  --") }
                #expect(!options.isEmpty, "quire \(command) --help lists no option")
                for index in options {
                    let folded = lines[(index + 1)...].prefix { $0.hasPrefix("      ") }
                    let help = ([lines[index]] + folded).joined(separator: " ")
                    #expect(help.contains("default") || help.contains("required)"), "no default: \(help)")
                }
                #expect(lines.allSatisfy { $0.count <= 100 }, "quire \(command) --help has lines over 100 columns")
            }
        }
        // A unit is named where the value counts something.
        let build = try Self.quire(["build", "--help"]).stdout
        #expect(build.contains("--lock-timeout SECONDS") && build.contains("(seconds; default 30)"), "\(build)")
        #expect(try Self.quire(["help", "gc"]).stdout.contains("--keep N"))
    }

    @Test func anOptionACommandDoesNotTakeIsAUsageErrorNamingIt() throws {
        let saves = try Self.quire(["build", "--saves", "3"])
        #expect(saves.status == 2)
        #expect(saves.stderr.contains("quire build does not take --saves"), "\(saves.stderr)")
        let format = try Self.quire(["watch", "--format", "json"])
        #expect(format.status == 2)
        #expect(format.stderr.contains("quire watch does not take --format"), "\(format.stderr)")
        for command in try Self.commands() {
            let words = command == "l10n" ? ["l10n", "status"] : [command]
            let run = try Self.quire(words + ["--no-such-option"])
            #expect(run.status == 2, "quire \(words.joined(separator: " ")) --no-such-option: exit \(run.status)")
            #expect(run.stderr.contains("--no-such-option"), "\(run.stderr)")
        }
        // Options of another command are refused too: check publishes nothing, so it has no --dist.
        #expect(try Self.quire(["check", "--dist", "/tmp/x"]).stderr.contains("quire check does not take --dist"))
        #expect(try Self.quire(["versions", "--site", "s", "--reason", "x"]).status == 2)
        #expect(try Self.quire(["l10n", "import", "f.po", "--site", "s", "--out", "x"]).status == 2)
        // A value after a flag, a missing value, a missing required option.
        #expect(try Self.quire(["build", "--timings=yes"]).status == 2)
        #expect(try Self.quire(["build", "--site"]).status == 2)
        let gc = try Self.quire(["gc", "--site", "shop"])
        #expect(gc.status == 2)
        #expect(gc.stderr.contains("needs --keep N"), "\(gc.stderr)")
        // Every usage error points to the help of the command it is about.
        let noFiles = try Self.quire(["l10n", "import", "--site", "shop"])
        #expect(noFiles.status == 2)
        #expect(noFiles.stderr.contains("(quire l10n import --help lists its options)"), "\(noFiles.stderr)")
    }

    /// README's synopsis block: the fenced block with a `quire versions` line. Each line that
    /// starts with `quire COMMAND`, with the indented lines after it, names COMMAND's options.
    static func readmeSynopsis() throws -> [String: Set<String>] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        let blocks = text.components(separatedBy: "```").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        let block = try #require(blocks.first { $0.contains("\nquire versions") }, "README has no synopsis block")
        var options: [String: Set<String>] = [:]
        var command: String?
        for line in block.split(separator: "\n") {
            if line.hasPrefix("quire ") {
                command = line.split(separator: " ").dropFirst().first.map(String.init)
            } else if !line.hasPrefix(" ") {
                command = nil
            }
            guard let command else { continue }
            let names = line.split(whereSeparator: { " []|".contains($0) }).filter { $0.hasPrefix("--") }.map { String($0.dropFirst(2)) }
            options[command, default: []].formUnion(names)
        }
        return options
    }

    /// The options the paragraph under the synopsis block says once for several commands ("Each
    /// takes `--pages DIR` ... where it uses them"): the synopsis lines leave them out.
    static func readmeCommonOptions() throws -> Set<String> {
        let text = try String(contentsOf: readme, encoding: .utf8)
        guard let start = text.range(of: "\nEach takes ") else { return [] }
        let paragraph = text[start.upperBound...].components(separatedBy: "\n\n")[0]
        let words = paragraph.split(whereSeparator: { " `\n".contains($0) })
        return Set(words.filter { $0.hasPrefix("--") }.map { String($0.dropFirst(2)) })
    }

    @Test func readmeSynopsisListsWhatHelpLists() throws {
        let synopsis = try Self.readmeSynopsis()
        let common = try Self.readmeCommonOptions()
        let commands = try Self.commands()
        #expect(Set(synopsis.keys) == Set(commands), "README's synopsis covers \(synopsis.keys.sorted()); quire --help lists \(commands)")
        var helpOptions: Set<String> = []
        for command in commands {
            let all = Self.options(inHelp: try Self.quire([command, "--help"]).stdout)
            helpOptions.formUnion(all)
            let help = all.subtracting(common)
            let readme = (synopsis[command] ?? []).subtracting(common)
            #expect(
                help == readme,
                """
                quire \(command): --help lists \(help.sorted()), README's synopsis \(readme.sorted()); \
                only in --help: \(help.subtracting(readme).sorted()), only in README: \(readme.subtracting(help).sorted())
                """)
        }
        #expect(common.isSubset(of: helpOptions), "README says every command takes \(common.subtracting(helpOptions).sorted()); none does")
    }

    @Test func bothExecutablesGetTheirMallocFromMimalloc() throws {
        // mimalloc serves malloc only when the loader finds it before glibc: it must come first.
        for executable in ["quire", "quire-bench"] {
            let ldd = try CommandRun.run("/usr/bin/ldd", [try QuireBinary.path(of: executable)])
            let libraries = ldd.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let mimalloc = libraries.firstIndex { $0.hasPrefix("libmimalloc") }
            let glibc = libraries.firstIndex { $0.hasPrefix("libc.so") }
            #expect(mimalloc != nil && glibc != nil && mimalloc! < glibc!, "\(executable):\n\(ldd.stdout)")
        }
    }
}
