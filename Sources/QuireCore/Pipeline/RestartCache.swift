import Foundation
import QuireModel

/// What a watcher knew when it stopped (`IncrementalState`, and its delta base), so that a
/// restarted one costs what changed: `state/watch-cache`, never served or pushed, in Quire's own
/// binary form (`BinaryWriter`). A source or translation file is reused only while it is unchanged
/// (its stamp is the one taken when it was read, `FileStamp`, or else its bytes hash the same) and
/// the validation context (settings, assets, page ids) is the same, and a page's
/// output only while its key is the same and the newest version holds each of its files with the
/// same input digest (`IncrementalState.keepOutputs(matching:)`). A file that is missing, damaged
/// or of another format is no cache at all.
///
///     format, previews, root, context?: (settings, [page id], [asset]),
///     base?: (version, built at, [diagnostic], tables?: (version manifest digest, bytes)),
///     sources: [(path, digest, stamp?, page id, file, flags, timetable?, [diagnostic], [link])],
///     translations: [(path, digest, stamp?, locale?, warnings: [diagnostic] | failure: diagnostic)],
///     outputs: [(page id, key, [path], files digest, [diagnostic], [(locale, translated, stale, missing)])],
///     assets: [(path, digest)], trees: [(tree id, [subtree id], [part id])], index?
///
/// `base` is what the last publish left for the next delta (`DeltaBase`) beyond the pages: the
/// version it published, when it was built, every diagnostic, and the tables kept of the whole
/// version (`RestoredTables`: each page's paths, the cache headers, the page index and feeds),
/// and the version's file index (`FileIndex`: every folder's tree manifest, without its bytes).
/// A restarted watcher whose newest version is still that one, with the same manifest, takes
/// those as they are (`tables(of:reader:)`): a version never changes once published, and its
/// manifest names every tree of it by the digest of the tree's manifest.
///
/// A tree's children are kept as they are too: a tree id names its manifest's bytes, so they
/// never change, and retention marks from them without parsing the manifests of the versions it
/// keeps (a folder of 10,000 entries each).
struct RestartCache: @unchecked Sendable {
    static let format = 6
    var sources: [String: CachedSource] = [:]
    var translations: [String: CachedTranslation] = [:]
    /// Outputs whose files' input digests are not known yet: `filesDigests` says what they were.
    var outputs: [String: (key: OutputKey, output: PageOutput)] = [:]
    /// Per page, the digest of its output's files' paths and input digests (`filesDigest`).
    var filesDigests: [String: Digest] = [:]
    var assetDigests: [String: Digest] = [:]
    var context: (settings: String, pageIDs: Set<String>, assets: Set<String>)?
    var treeChildren: [String: TreeChildren.Children] = [:]
    /// The version the last publish made, when that build ran, and its diagnostics (`DeltaBase`).
    var base: (version: VersionID, builtAt: Date, diagnostics: [Diagnostic])?
    /// The base's tables of its whole version, as `RestoredTables.write` wrote them: read once
    /// the site's settings say what they are for (`RestoredTables.init(reading:)`); and the
    /// version's file index (`FileIndex.bytes`).
    var tables: Tables?

    struct Tables {
        var versionManifest: Digest
        var bytes: [UInt8]
        var index: [UInt8]? = nil
    }

    static func path(_ layout: SiteLayout) -> String { layout.state + "/watch-cache" }

    /// Where watchers kept it as JSON, before this form: removed when this one is written.
    static func jsonPath(_ layout: SiteLayout) -> String { layout.state + "/watch-cache.json" }

    /// The tables and index the file holds of `newest`, when they are of that version: the one
    /// the file names, with the manifest whose digest it recorded (a version's number is given
    /// again once the versions are removed).
    func tables(of newest: VersionID, reader: VersionReader) -> Tables? {
        guard let base, base.version == newest, let tables, (try? reader.manifestDigest(of: newest)) == tables.versionManifest else {
            return nil
        }
        return tables
    }

    init(_ state: IncrementalState) {
        sources = state.sources
        translations = state.translations
        outputs = state.outputs
        assetDigests = state.assetDigests
        context = state.lastContext
    }

    /// The cache at `path` when it was written by a watcher with the same `previews`, naming the
    /// site's folder as `displayRoot` (diagnostics kept in it say it).
    /// The rest of the file must hash to the SHA-256 its head holds: the tables are taken as
    /// they are, so a file changed in any byte (by a disk, or a copy) is no cache.
    static func read(_ path: String, previews: Bool, displayRoot: String) -> RestartCache? {
        guard let bytes = try? FileSystem.readFile(path) else { return nil }
        var reader = BinaryReader(bytes)
        guard (try? reader.int()) == format, (try? reader.bool()) == previews, (try? reader.string()) == displayRoot,
            let digest = try? Digest(reading: &reader), SHA256.digest(reader.remaining) == digest
        else { return nil }
        return try? RestartCache(reading: &reader)
    }

    /// Replaces the file in one rename, so a reader never sees half of it. `index`: the tables'
    /// file index, asked for last, once the rest is written (the caller may be encoding it
    /// meanwhile: 600,000 entries at 100,000 pages). The tables and the index are written from
    /// where they are, not copied into the rest: each is as large as the rest, and copies of
    /// them made this write a stopping watcher's largest moment.
    func write(_ path: String, previews: Bool, displayRoot: String, index: () -> [UInt8]? = { nil }) throws(StoreError) {
        var body = BinaryWriter(capacity: 256 * (sources.count + translations.count + outputs.count))
        write(to: &body)
        body.optional(tables == nil ? nil : index()) { $0.countedByReference($1) }
        let pieces = body.pieces
        var hash = SHA256()
        for piece in pieces { piece.withUnsafeBytes { hash.update($0) } }
        var head = BinaryWriter()
        head.int(Self.format)
        head.bool(previews)
        head.string(displayRoot)
        hash.finalizeDigest().write(to: &head)
        try FileSystem.replaceFile(path) { output throws(StoreError) in
            try output.write(head.bytes)
            for piece in pieces { try output.write(piece) }
        }
    }

    // MARK: Encoding

    private func write(to writer: inout BinaryWriter) {
        writer.optional(context) { writer, context in
            writer.string(context.settings)
            writer.strings(context.pageIDs.sorted())
            writer.strings(context.assets.sorted())
        }
        writer.optional(base) { writer, base in
            writer.int(base.version.number)
            writer.date(base.builtAt)
            Self.write(base.diagnostics, to: &writer)
            writer.optional(tables) { writer, tables in
                tables.versionManifest.write(to: &writer)
                writer.countedByReference(tables.bytes)
            }
        }
        writer.array(sources) { writer, entry in
            let page = entry.value.page
            writer.string(entry.key)
            entry.value.digest.write(to: &writer)
            writer.optional(entry.value.stamp) { $1.write(to: &$0) }
            writer.string(page.pageID)
            writer.string(page.file)
            writer.int((page.hasModel ? 1 : 0) | (page.isDraft ? 2 : 0) | (page.usesDrillCarousel ? 4 : 0))
            writer.optional(page.timetable) { writer, timetable in
                Self.write(timetable.schedule, to: &writer)
                writer.array(timetable.sections) { writer, section in
                    writer.string(section.name)
                    Self.write(section.schedule, to: &writer)
                }
            }
            Self.write(page.diagnostics, to: &writer)
            writer.strings(page.linkedPageIDs.sorted())
        }
        writer.array(translations) { writer, entry in
            writer.string(entry.key)
            entry.value.digest.write(to: &writer)
            writer.optional(entry.value.stamp) { $1.write(to: &$0) }
            switch entry.value.parsed {
            case .success(let summary):
                writer.bool(true)
                writer.optionalString(summary.locale)
                Self.write(summary.warnings, to: &writer)
            case .failure(let diagnostic):
                writer.bool(false)
                Self.write(diagnostic, to: &writer)
            }
        }
        writer.array(outputs) { writer, entry in
            let output = entry.value.output
            writer.string(entry.key)
            entry.value.key.write(to: &writer)
            writer.strings(output.files.map(\.path))
            Self.filesDigest(output.files).write(to: &writer)
            Self.write(output.diagnostics, to: &writer)
            writer.array(output.coverage.sorted { $0.key < $1.key }) { writer, coverage in
                writer.string(coverage.key)
                for count in [coverage.value.translated, coverage.value.stale, coverage.value.missing] { writer.int(count) }
            }
        }
        writer.array(assetDigests) { writer, asset in
            writer.string(asset.key)
            asset.value.write(to: &writer)
        }
        writer.array(treeChildren) { writer, tree in
            writer.string(tree.key)
            writer.strings(tree.value.subtrees)
            writer.strings(tree.value.parts)
        }
    }

    private static func write(_ schedule: Schedule, to writer: inout BinaryWriter) {
        writer.optional(schedule.publishAt) { $0.date($1) }
        writer.optional(schedule.expiresAt) { $0.date($1) }
    }

    private static func write(_ diagnostics: [Diagnostic], to writer: inout BinaryWriter) {
        writer.array(diagnostics) { write($1, to: &$0) }
    }

    private static func write(_ diagnostic: Diagnostic, to writer: inout BinaryWriter) {
        writer.string(diagnostic.severity.rawValue)
        writer.string(diagnostic.file)
        writer.int(diagnostic.position.line)
        writer.int(diagnostic.position.column)
        writer.string(diagnostic.keyPath)
        writer.string(diagnostic.message)
    }

    // MARK: Decoding

    private init(reading reader: inout BinaryReader) throws(BinaryReader.Malformed) {
        typealias Malformed = BinaryReader.Malformed
        let stamp = { (reader: inout BinaryReader) throws(Malformed) in try FileStamp(reading: &reader) }
        context = try reader.optional { reader throws(Malformed) in
            (try reader.string(), Set(try reader.strings()), Set(try reader.strings()))
        }
        var tables: Tables?
        base = try reader.optional { reader throws(Malformed) in
            let (version, builtAt, diagnostics) = (VersionID(try reader.int()), try reader.date(), try Self.diagnostics(&reader))
            tables = try reader.optional { reader throws(Malformed) in
                Tables(versionManifest: try Digest(reading: &reader), bytes: try reader.counted())
            }
            return (version, builtAt, diagnostics)
        }
        self.tables = tables
        let sourceCount = try reader.count()
        sources.reserveCapacity(sourceCount)
        for _ in 0..<sourceCount {
            let (path, digest, stamp) = (try reader.string(), try Digest(reading: &reader), try reader.optional(stamp))
            let (pageID, file, flags) = (try reader.string(), try reader.string(), try reader.int())
            let timetable = try reader.optional { reader throws(Malformed) in
                PageTimetable(
                    pageID: pageID, schedule: try Self.schedule(&reader),
                    sections: try reader.array { reader throws(Malformed) in
                        PageTimetable.Section(name: try reader.string(), schedule: try Self.schedule(&reader))
                    })
            }
            let page = ProcessedPage(
                restoring: pageID, file: file, sourceDigest: digest, hasModel: flags & 1 != 0, isDraft: flags & 2 != 0,
                timetable: timetable, usesDrillCarousel: flags & 4 != 0, diagnostics: try Self.diagnostics(&reader),
                linkedPageIDs: Set(try reader.strings()))
            sources[path] = CachedSource(digest: digest, page: page, stamp: stamp)
        }
        let translationCount = try reader.count()
        translations.reserveCapacity(translationCount)
        for _ in 0..<translationCount {
            let (path, digest, stamp) = (try reader.string(), try Digest(reading: &reader), try reader.optional(stamp))
            let parsed: Result<TranslationSummary, Diagnostic> =
                try reader.bool()
                ? .success(TranslationSummary(locale: try reader.optionalString(), warnings: try Self.diagnostics(&reader)))
                : .failure(try Self.diagnostic(&reader))
            translations[path] = CachedTranslation(digest: digest, parsed: parsed, stamp: stamp)
        }
        let outputCount = try reader.count()
        outputs.reserveCapacity(outputCount)
        filesDigests.reserveCapacity(outputCount)
        for _ in 0..<outputCount {
            let (pageID, key) = (try reader.string(), try OutputKey(reading: &reader))
            var output = PageOutput()
            output.files = try reader.array { reader throws(Malformed) in
                OutputFile(path: try reader.string(), content: .carried, inputDigest: "")
            }
            filesDigests[pageID] = try Digest(reading: &reader)
            output.diagnostics = try Self.diagnostics(&reader)
            for _ in 0..<(try reader.count()) {
                let locale = try reader.string()
                output.coverage[locale] = LocaleCoverage(
                    locale: locale, translated: try reader.int(), stale: try reader.int(), missing: try reader.int())
            }
            outputs[pageID] = (key, output)
        }
        for _ in 0..<(try reader.count()) { assetDigests[try reader.string()] = try Digest(reading: &reader) }
        for _ in 0..<(try reader.count()) { treeChildren[try reader.string()] = (try reader.strings(), try reader.strings()) }
        let index = try reader.optional { reader throws(Malformed) in try reader.counted() }
        guard reader.isAtEnd, index == nil || self.tables != nil else { throw Malformed() }
        self.tables?.index = index
    }

    private static func schedule(_ reader: inout BinaryReader) throws(BinaryReader.Malformed) -> Schedule {
        let date = { (reader: inout BinaryReader) throws(BinaryReader.Malformed) in try reader.date() }
        return Schedule(publishAt: try reader.optional(date), expiresAt: try reader.optional(date))
    }

    private static func diagnostics(_ reader: inout BinaryReader) throws(BinaryReader.Malformed) -> [Diagnostic] {
        try reader.array { reader throws(BinaryReader.Malformed) in try diagnostic(&reader) }
    }

    private static func diagnostic(_ reader: inout BinaryReader) throws(BinaryReader.Malformed) -> Diagnostic {
        guard let severity = Diagnostic.Severity(rawValue: try reader.string()) else { throw BinaryReader.Malformed() }
        let (file, line, column) = (try reader.string(), try reader.int(), try reader.int())
        return Diagnostic(
            severity, file: file, at: SourcePosition(line: line, column: column), keyPath: try reader.string(), try reader.string())
    }

    /// What a page's output files were: each path with its input digest.
    static func filesDigest(_ files: [OutputFile]) -> Digest {
        var hash = SHA256()
        for file in files {
            hash.update(file.path + "\t")
            hash.update(file.inputDigest)
            hash.update("\n")
        }
        return hash.finalizeDigest()
    }
}

extension PageTimetable {
    init(pageID: String, schedule: Schedule, sections: [Section]) {
        self.pageID = pageID
        self.schedule = schedule
        self.sections = sections
    }
}
