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

    /// libgettextpo ends every syntax error with a fatal one whose handler must not return: the
    /// child dies, the caller gets a positioned diagnostic and goes on.
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
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-po-memo-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let parser = folder + "/quire"
        try FileManager.default.copyItem(atPath: try L10nFixtures.quireExecutable, toPath: parser)
        let bytes = try L10nFixtures.bytes("trex-store.fr.po")
        _ = try POFileParser.parseInChildProcess(bytes, file: "first.po", executable: parser)
        try FileManager.default.removeItem(atPath: parser)

        let (catalog, _) = try POFileParser.parseInChildProcess(bytes, file: "l10n/fr/again.po", executable: parser)
        #expect(catalog.file == "l10n/fr/again.po")
        try expectTrexStore(catalog)
        let error = L10nFixtures.diagnostic { () throws(Diagnostic) in
            _ = try POFileParser.parseInChildProcess(bytes + Array("\n".utf8), file: "other.po", executable: parser)
        }
        #expect(error?.message.contains("cannot start the PO parser") == true)
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
