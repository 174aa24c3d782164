import Foundation
import Testing

@testable import QuireCore

@Suite struct LocalizationPOTests {
    private func expectTrexStore(_ catalog: TranslationCatalog) throws {
        #expect(catalog.locale == "fr")
        #expect(catalog.pageID == "trex-store")
        // browse.label has an empty msgstr (untranslated); old.title is obsolete.
        #expect(catalog.entries.map(\.key) == ["hero.title", "why.body", "grid.items.idpa-50.title"])
        let title = try #require(catalog["hero.title"])
        #expect(title.text == "L'essentiel de l'entraînement")
        #expect(title.sourceText == "Training Essentials")
        #expect(title.position == SourcePosition(line: 18, column: 1))
        #expect(!title.isFuzzy)
        let body = try #require(catalog["why.body"])
        #expect(body.isFuzzy)
        #expect(body.text == "### Pourquoi des cibles standardisées\nAvec le matériel **officiel**, vos scores comptent.")
        #expect(body.position == SourcePosition(line: 24, column: 1))
        #expect(catalog["grid.items.idpa-50.title"]?.sourceText == "IDPA target \"50\" pack")
    }

    @Test func parsesInChildProcess() throws {
        let bytes = try L10nFixtures.bytes("trex-store.fr.po")
        let (catalog, warnings) = try TranslationFileReader.read(
            bytes, file: "l10n/fr/trex-store.po", format: .po, poParserExecutable: L10nFixtures.quireExecutable)
        #expect(warnings.isEmpty)
        #expect(catalog.file == "l10n/fr/trex-store.po")
        try expectTrexStore(catalog)
    }

    @Test func parsesValidFileInProcess() throws {
        let (catalog, _) = try POFileParser.parseInProcess(path: L10nFixtures.path("trex-store.fr.po"), file: "trex-store.fr.po")
        try expectTrexStore(catalog)
    }

    /// A syntax error is a positioned diagnostic, and the next file parses.
    @Test func syntaxErrorBecomesDiagnosticNotCrash() throws {
        let bytes = try L10nFixtures.bytes("broken-syntax.po")
        let quire = try L10nFixtures.quireExecutable
        let error = L10nFixtures.diagnostic { () throws(Diagnostic) in
            _ = try POFileParser.parseInChildProcess(bytes, file: "l10n/fr/broken.po", executable: quire)
        }
        let diagnostic = try #require(error)
        #expect(diagnostic.isError)
        #expect(diagnostic.file == "l10n/fr/broken.po")
        #expect(diagnostic.position.line == 9, "msgfmt reports the same line: \(diagnostic)")
        #expect(diagnostic.message.contains("end-of-line within string"))
        // Still alive, and the next file parses.
        let (catalog, _) = try POFileParser.parseInChildProcess(
            try L10nFixtures.bytes("trex-store.fr.po"), file: "ok.po", executable: L10nFixtures.quireExecutable)
        #expect(catalog.entries.count == 3)
    }

    /// The same bytes are parsed once: a second read needs no child (here its program is gone),
    /// while other bytes still start one.
    @Test func bytesParsedBeforeNeedNoChild() throws {
        let link = try ParserLink()
        defer { link.remove() }
        let parser = link.path
        let bytes = try L10nFixtures.bytes("trex-store.fr.po")
        _ = try POFileParser.parseInChildProcess(bytes, file: "first.po", executable: parser)
        try FileManager.default.removeItem(atPath: parser)
        POParserPool.shared.endIdleChildren(of: parser)

        let (catalog, _) = try POFileParser.parseInChildProcess(bytes, file: "l10n/fr/again.po", executable: parser)
        #expect(catalog.file == "l10n/fr/again.po")
        try expectTrexStore(catalog)
        let error = L10nFixtures.diagnostic { () throws(Diagnostic) in
            _ = try POFileParser.parseInChildProcess(bytes + Array("\n".utf8), file: "other.po", executable: parser)
        }
        #expect(error?.message.contains("cannot start the PO parser") == true)
    }

    /// One child parses file after file: the next file needs no process start (here the program
    /// is gone once the first file is parsed).
    @Test func keptChildParsesTheNextFile() throws {
        let parser = try ParserLink()
        defer { parser.remove() }
        let bytes = try L10nFixtures.bytes("trex-store.fr.po")
        _ = try parser.parseFixture()
        try FileManager.default.removeItem(atPath: parser.path)

        try expectTrexStore(try parser.parseFixture(appending: "\n"))
        POParserPool.shared.endIdleChildren(of: parser.path)
        let error = L10nFixtures.diagnostic { () throws(Diagnostic) in
            _ = try POFileParser.parseInChildProcess(bytes + Array("\n\n".utf8), file: "third.po", executable: parser.path)
        }
        #expect(error?.message.contains("cannot start the PO parser") == true)
    }

    /// The child holds each file in one in-memory file: a file shorter than the one before it is
    /// read alone, without the end of the longer one (here an entry of its own).
    @Test func aShorterFileAfterALongerOneIsReadAlone() throws {
        let parser = try ParserLink()
        defer { parser.remove() }
        let longer = try parser.parseFixture(appending: "\nmsgctxt \"extra.key\"\nmsgid \"Extra\"\nmsgstr \"En plus\"\n")
        #expect(longer["extra.key"]?.text == "En plus")
        let children = parser.runningChildren()
        try expectTrexStore(try parser.parseFixture())
        #expect(parser.runningChildren() == children)
    }

    /// A kept child that died while idle (killed here) is replaced, and the file still parses.
    @Test func childKilledWhileIdleIsReplaced() throws {
        let parser = try ParserLink()
        defer { parser.remove() }
        _ = try parser.parseFixture()
        let children = parser.runningChildren()
        #expect(children.count == 1)
        for child in children { kill(child, SIGKILL) }

        try expectTrexStore(try parser.parseFixture(appending: "\n"))
        #expect(parser.runningChildren().count == 1)
        #expect(Set(parser.runningChildren()).isDisjoint(with: children))
    }

    /// Syntax errors are answered at their lines (as msgfmt reports them) and the child goes on:
    /// the next file is parsed by the same one.
    @Test func aFileWithManyErrorsIsAnsweredAndItsChildGoesOn() throws {
        let parser = try ParserLink()
        defer { parser.remove() }
        let header = "msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\n\n"
        let broken = header + (0..<30).map { "msgid \"a\($0)\nmsgstr \"b\"\n\n" }.joined()
        let error = L10nFixtures.diagnostic { () throws(Diagnostic) in
            _ = try POFileParser.parseInChildProcess(Array(broken.utf8), file: "l10n/fr/broken.po", executable: parser.path)
        }
        #expect(error?.file == "l10n/fr/broken.po")
        #expect(error?.position.line == 5, "\(String(describing: error))")
        #expect(error?.message.contains("end-of-line within string") == true, "\(String(describing: error))")
        let children = parser.runningChildren()
        #expect(children.count == 1)

        try expectTrexStore(try parser.parseFixture())
        #expect(parser.runningChildren() == children)
    }

    /// A child leaves after `filesPerChild` files (libgettextpo leaks a little per file); the
    /// next file gets a new one.
    @Test func childLeavesAfterItsShareOfFiles() throws {
        let parser = try ParserLink()
        defer { parser.remove() }
        let bytes = try L10nFixtures.bytes("trex-store.fr.po")
        var firstChildren: [pid_t] = []
        for index in 0..<POFileParser.filesPerChild {
            // Different bytes each time: the memo would answer bytes seen before.
            _ = try POFileParser.parseInChildProcess(
                bytes + Array("# \(index)\n".utf8), file: "\(index).po", executable: parser.path)
            if index == 0 { firstChildren = parser.runningChildren() }
        }
        #expect(firstChildren.count == 1)
        #expect(parser.runningChildren().isEmpty)
        let (catalog, _) = try POFileParser.parseInChildProcess(bytes + Array("# last\n".utf8), file: "last.po", executable: parser.path)
        try expectTrexStore(catalog)
        #expect(parser.runningChildren().count == 1)
        #expect(Set(parser.runningChildren()).isDisjoint(with: firstChildren))
    }

    @Test func missingParserExecutableIsADiagnostic() {
        let error = L10nFixtures.diagnostic { () throws(Diagnostic) in
            _ = try POFileParser.parseInChildProcess(
                Array("msgid \"\"\nmsgstr \"\"\n".utf8), file: "a.po", executable: "/nonexistent/quire")
        }
        #expect(error?.message.contains("cannot start the PO parser") == true)
    }

    @Test func duplicateKeyIsAnError() throws {
        let text = """
            msgid ""
            msgstr "Content-Type: text/plain; charset=UTF-8\\n"

            msgctxt "hero.title"
            msgid "A"
            msgstr "Un"

            msgctxt "hero.title"
            msgid "B"
            msgstr "Deux"

            """
        let quire = try L10nFixtures.quireExecutable
        let error = L10nFixtures.diagnostic { () throws(Diagnostic) in
            _ = try POFileParser.parseInChildProcess(Array(text.utf8), file: "dup.po", executable: quire)
        }
        #expect(error?.position.line == 8)
        #expect(error?.message.contains("duplicate key \"hero.title\"") == true)
    }
}

/// `quire` at a path of its own, so a test can tell its PO parser children from those of tests
/// running beside it. A link, not a copy: a copy being written while another test's thread
/// starts a child could not be run (ETXTBSY).
private struct ParserLink {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-po-\(UUID().uuidString)").path
    var path: String { folder + "/quire" }

    init() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: try L10nFixtures.quireExecutable)
    }

    /// `trex-store.fr.po` with `suffix` appended (other bytes than before: the memo does not
    /// answer them), parsed by a child started through the link.
    func parseFixture(appending suffix: String = "") throws -> TranslationCatalog {
        let bytes = try L10nFixtures.bytes("trex-store.fr.po") + Array(suffix.utf8)
        return try POFileParser.parseInChildProcess(bytes, file: "fixture.po", executable: path).0
    }

    /// This process's living children started through the link.
    func runningChildren() -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let processID = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let command = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(entry)/cmdline"))
            else { return nil }
            // stat: "pid (name) state ppid ...": the name may hold spaces, so read after its ')'.
            let fields = stat[stat.index(after: stat.lastIndex(of: ")") ?? stat.startIndex)...].split(separator: " ")
            let isOurs = fields.count > 2 && fields[1] == "\(getpid())" && fields[0] != "Z"
            let program = command.split(separator: 0).first.map { String(decoding: $0, as: UTF8.self) }
            return isOurs && program == path ? processID : nil
        }
    }

    func remove() {
        POParserPool.shared.endIdleChildren(of: path)
        try? FileManager.default.removeItem(atPath: folder)
    }
}
