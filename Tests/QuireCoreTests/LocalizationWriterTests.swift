import Foundation
import Testing

@testable import QuireCore

@Suite struct LocalizationWriterTests {
    static let units = [
        ExportUnit(
            key: "hero.title", sourceText: "Training Essentials", translation: "L'essentiel", state: .translated, note: "hero_banner title"),
        ExportUnit(
            key: "why.body", sourceText: "### Why \"standard\" targets\nUse **official** kit \\ <b>ok</b>\n",
            translation: "### Pourquoi\nUtilisez le kit **officiel** & <b>ok</b>\n", state: .stale),
        ExportUnit(key: "browse.label", sourceText: "Browse All Drills", state: .new),
        ExportUnit(
            key: "promo.text", sourceText: "Save {percent}\ttoday", translation: "Économisez {percent}\taujourd'hui", state: .translated),
    ]

    private func write(_ format: ExportFormat) -> [UInt8] {
        TranslationFileWriter.write(units: Self.units, pageID: "trex-store", sourceLocale: "en", targetLocale: "fr", format: format)
    }

    private func temporaryFile(_ name: String, _ bytes: [UInt8]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-l10n-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    /// The folder `temporaryFile` made, and what a tool wrote beside the file.
    private func removeFolder(of file: URL) {
        try? FileManager.default.removeItem(at: file.deletingLastPathComponent())
    }

    /// What every round trip must give back: translated and stale units, not the new one.
    private func expectRoundTrip(_ catalog: TranslationCatalog, keysKept: Bool = true) throws {
        #expect(catalog.locale == "fr")
        #expect(catalog.pageID == "trex-store")
        #expect(catalog.entries.count == 3)
        let byText = Dictionary(uniqueKeysWithValues: catalog.entries.map { ($0.sourceText ?? "", $0) })
        for unit in Self.units where unit.state != .new {
            let entry = try #require(byText[unit.sourceText], "\(unit.key) missing")
            #expect(entry.key == unit.key)
            #expect(entry.text == unit.translation)
            #expect(entry.isFuzzy == (unit.state == .stale))
        }
    }

    @Test(arguments: [ExportFormat.xliff12, .xliff20])
    func xliffRoundTrips(format: ExportFormat) throws {
        let (catalog, warnings) = try TranslationFileReader.read(write(format), file: "export.xlf", format: .xliff)
        #expect(warnings.isEmpty)
        try expectRoundTrip(catalog)
    }

    @Test func poRoundTripsAndPassesMsgfmtCheck() throws {
        let file = try temporaryFile("trex-store.po", write(.po))
        defer { removeFolder(of: file) }
        let msgfmt = try run("/usr/bin/msgfmt", ["--check", "-o", "/dev/null", file.path])
        #expect(msgfmt.status == 0, "msgfmt --check: \(msgfmt.output)")
        let (catalog, _) = try POFileParser.parseInChildProcess(
            [UInt8](try Data(contentsOf: file)), file: "trex-store.po", executable: L10nFixtures.quireExecutable)
        try expectRoundTrip(catalog)
    }

    /// Quire PO -> translate-toolkit `po2xliff` -> Quire's XLIFF reader: keys survive through the
    /// `key:` developer note (po2xliff drops msgctxt), fuzzy through the target state.
    @Test func poThroughPo2xliffReadsBack() throws {
        let po = try temporaryFile("trex-store.po", write(.po))
        defer { removeFolder(of: po) }
        let xliff = po.deletingLastPathComponent().appendingPathComponent("trex-store.xlf")
        let converted = try run(try toolPath("po2xliff"), [po.path, xliff.path])
        try #require(converted.status == 0, "po2xliff: \(converted.output)")
        let (catalog, _) = try TranslationFileReader.read([UInt8](try Data(contentsOf: xliff)), file: "trex-store.xlf", format: .xliff)
        try expectRoundTrip(catalog)
    }

    /// Quire XLIFF 1.2 -> translate-toolkit `xliff2po` -> Quire's PO reader.
    @Test func xliffThroughXliff2poReadsBack() throws {
        let xliff = try temporaryFile("trex-store.xlf", write(.xliff12))
        defer { removeFolder(of: xliff) }
        let po = xliff.deletingLastPathComponent().appendingPathComponent("trex-store.po")
        let converted = try run(try toolPath("xliff2po"), [xliff.path, po.path])
        try #require(converted.status == 0, "xliff2po: \(converted.output)")
        let (catalog, _) = try POFileParser.parseInChildProcess(
            [UInt8](try Data(contentsOf: po)), file: "trex-store.po", executable: L10nFixtures.quireExecutable)
        #expect(catalog.entries.map(\.key).sorted() == ["hero.title", "promo.text", "why.body"])
        #expect(catalog["why.body"]?.isFuzzy == true)
        #expect(catalog["hero.title"]?.isFuzzy == false, "approved=\"yes\" keeps xliff2po from marking it fuzzy")
    }

    @Test func poWriterSplitsLinesAndEscapes() {
        let text = String(decoding: write(.po), as: UTF8.self)
        #expect(
            text.contains(
                """
                #. key: why.body
                #: trex-store
                #, fuzzy
                msgctxt "why.body"
                msgid ""
                "### Why \\"standard\\" targets\\n"
                "Use **official** kit \\\\ <b>ok</b>\\n"
                """))
        #expect(text.contains("msgctxt \"browse.label\"\nmsgid \"Browse All Drills\"\nmsgstr \"\"\n"))
    }

    private func toolPath(_ name: String) throws -> String {
        let found = try run("/usr/bin/env", ["which", name])
        let path = found.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(found.status == 0 && !path.isEmpty, "\(name) not installed: pip install translate-toolkit")
        return path
    }

    private func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
