import Foundation
import QuireModel
import Synchronization

/// What a watcher knew when it stopped (`IncrementalState`, and its delta base), so that a
/// restarted one costs what changed: `state/watch-cache`, never served or pushed, in Quire's own
/// binary form (`BinaryWriter`). A source or translation file is reused only while it is unchanged
/// (its stamp is the one taken when it was read, `FileStamp`, or else its bytes hash the same) and
/// the validation context (settings, assets, page ids) is the same, and a page's
/// output only while its key is the same and the newest version holds each of its files with the
/// same input digest (`IncrementalState.keepOutputs(matching:)`). A file that is missing, damaged
/// or of another format is no cache at all.
///
///     head: format, previews, root
///     body: context?: (settings, [page id], [asset]),
///         base?: (version, built at, [diagnostic], version manifest digest?),
///         sources: [(path, digest, stamp?, page id, file, flags, timetable?, [diagnostic], [link])],
///         translations: [(path, digest, stamp?, locale?, warnings: [diagnostic] | failure: diagnostic)],
///         outputs: [(page id, key, [path], files digest, [diagnostic], [(locale, translated, stale, missing)])],
///         assets: [(path, digest)], trees: [(tree id, [subtree id], [part id])]
///     tables, index
///     trailer: the body's, tables' and index's lengths (8 bytes each), then the SHA-256 of each
///
/// `base` is what the last publish left for the next delta (`DeltaBase`) beyond the pages: the
/// version it published, when it was built, every diagnostic, and, when its manifest digest is
/// there, the tables kept of the whole version (`RestoredTables`: each page's paths, the cache
/// headers, the page index and feeds) and the version's file index (`FileIndex`: every folder's
/// tree manifest, without its bytes; its length is 0 when there is none).
/// A restarted watcher whose newest version is still that one, with the same manifest, takes
/// those as they are (`tables(of:reader:)`): a version never changes once published, and its
/// manifest names every tree of it by the digest of the tree's manifest.
///
/// The file is written as it is encoded, a megabyte at a time (`BinaryWriter(spillingTo:)`),
/// which is why the lengths and the digests come last: at 100,000 pages it is about 250 MB, and a
/// stopping watcher that held it whole went over its usual memory by as much. It is read as it
/// is parsed, a megabyte at a time too (`FilePart`), each part hashed as it is read and taken only
/// if it hashes to its digest: a restarted watcher that read it whole held it on top of what it
/// parsed from it.
///
/// A tree's children are kept as they are too: a tree id names its manifest's bytes, so they
/// never change, and retention marks from them without parsing the manifests of the versions it
/// keeps (a folder of 10,000 entries each).
struct RestartCache: @unchecked Sendable {
    static let format = 8
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
    /// The base's tables of its whole version and its file index, as parts of the file yet to
    /// read, parsed once the site's settings say what they are for (`RestoredTables.init(reading:)`,
    /// `FileIndex.init(reading:)`).
    var tables: Tables?

    struct Tables {
        var versionManifest: Digest
        var tables: HandedOverPart
        var index: HandedOverPart?
    }

    /// A part of the file for the one reader that parses it (the tables, 65 MB at 100,000 pages,
    /// and the index, 100 MB), on its own thread: read as it is parsed, and what was parsed is
    /// taken only if the part hashes to the digest the file recorded for it.
    final class HandedOverPart: Sendable {
        private let part: Mutex<FilePart?>
        private let digest: Digest

        init(_ part: sending FilePart, digest: Digest) {
            self.part = Mutex(part)
            self.digest = digest
        }

        /// What `parse` reads of the whole part, the first time; nil after, or when the part
        /// does not parse to its end or hash to its digest.
        func parse<Value>(_ parse: (inout BinaryReader) throws(BinaryReader.Malformed) -> Value) -> Value? {
            guard let part = self.part.withLock({ $0.take() }) else { return nil }
            var reader = BinaryReader(part)
            guard let value = try? parse(&reader), reader.isAtEnd, part.digest() == digest else { return nil }
            return value
        }
    }

    /// What a stopping watcher leaves of its base's whole version.
    struct VersionTables {
        var versionManifest: Digest
        var tables: RestoredTables
        var index: FileIndex?
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
    /// Each part must hash to the SHA-256 the trailer holds for it, as the tables are taken as
    /// they are: a body changed in any byte (by a disk, or a copy) is no cache, and tables or an
    /// index changed are not taken (the version's own are read instead).
    static func read(_ path: String, previews: Bool, displayRoot: String) -> RestartCache? {
        guard let file = try? OpenedFile(path), file.size >= Trailer.size,
            let trailer = try? Trailer(reading: file.read(count: Trailer.size, at: file.size - Trailer.size)[...]),
            trailer.lengths.allSatisfy({ (0...file.size).contains($0) })  // so that their sum cannot overflow
        else { return nil }
        let headLength = file.size - Trailer.size - trailer.lengths.reduce(0, +)
        guard headLength >= 0 else { return nil }
        var head = BinaryReader(FilePart(file, 0..<headLength))
        guard (try? head.int()) == format, (try? head.bool()) == previews, (try? head.string()) == displayRoot, head.isAtEnd else {
            return nil
        }
        var start = headLength
        let ranges = trailer.lengths.map { length in
            defer { start += length }
            return start..<start + length
        }
        let tables = HandedOverPart(FilePart(file, ranges[1]), digest: trailer.digests[1])
        let index = ranges[2].isEmpty ? nil : HandedOverPart(FilePart(file, ranges[2]), digest: trailer.digests[2])
        let body = FilePart(file, ranges[0])
        var reader = BinaryReader(body)
        let hasTables = !ranges[1].isEmpty || !ranges[2].isEmpty
        guard let cache = try? RestartCache(reading: &reader, tables: hasTables ? (tables, index) : nil), reader.isAtEnd,
            body.digest() == trailer.digests[0]
        else { return nil }
        return cache
    }

    /// The lengths of the body, the tables and the index, then the digest of each.
    private struct Trailer {
        /// A SHA-256 as `Digest.write` writes it: a flag, then its 32 bytes.
        static let digestSize = 1 + 32
        static let size = 3 * (8 + digestSize)
        var lengths: [Int]
        var digests: [Digest]

        init(reading bytes: ArraySlice<UInt8>) throws(BinaryReader.Malformed) {
            var reader = BinaryReader(bytes)
            lengths = [try reader.fixedWidth(), try reader.fixedWidth(), try reader.fixedWidth()]
            digests = [try Digest(reading: &reader), try Digest(reading: &reader), try Digest(reading: &reader)]
            guard reader.isAtEnd else { throw BinaryReader.Malformed() }
        }
    }

    /// Replaces the file in one rename, so a reader never sees half of it; `tables` are those of
    /// `base`'s version. It is written as it is encoded, and hashed as it goes.
    func write(_ path: String, previews: Bool, displayRoot: String, tables: VersionTables?) throws(StoreError) {
        var head = BinaryWriter()
        head.int(Self.format)
        head.bool(previews)
        head.string(displayRoot)
        try FileSystem.replaceFile(path) { output throws(StoreError) in
            try output.write(head.bytes)
            let parts = HashedOutput(output)
            var writer = BinaryWriter(spillingTo: parts.write)
            var trailer = BinaryWriter()
            var digests: [Digest] = []
            var lengthsWritten = 0
            func endPart() throws(StoreError) {
                writer.spillHeld()
                trailer.fixedWidth(writer.count - lengthsWritten)
                lengthsWritten = writer.count
                digests.append(try parts.endPart())
            }
            write(to: &writer, versionManifest: tables?.versionManifest)
            try endPart()
            tables?.tables.write(to: &writer)
            try endPart()
            tables?.index?.write(to: &writer)
            try endPart()
            for digest in digests { digest.write(to: &trailer) }
            try output.write(trailer.bytes)
        }
    }

    /// Writes what it is given to `output` and hashes each part of it; the first failure is
    /// thrown at the end of the part.
    private final class HashedOutput {
        private let output: FileOutput
        private var hash: SHA256? = SHA256()
        private var failure: StoreError?

        init(_ output: FileOutput) { self.output = output }

        func write(_ bytes: [UInt8]) {
            guard failure == nil else { return }
            bytes.withUnsafeBytes { hash?.update($0) }
            do throws(StoreError) { try output.write(bytes) } catch { failure = error }
        }

        /// The digest of what was written since the last part ended.
        func endPart() throws(StoreError) -> Digest {
            if let failure { throw failure }
            defer { hash = SHA256() }
            return hash.take()!.finalizeDigest()
        }
    }

    // MARK: Encoding

    private func write(to writer: inout BinaryWriter, versionManifest: Digest?) {
        writer.optional(context) { writer, context in
            writer.string(context.settings)
            writer.strings(context.pageIDs.sorted())
            writer.strings(context.assets.sorted())
        }
        writer.optional(base) { writer, base in
            writer.int(base.version.number)
            writer.date(base.builtAt)
            Self.write(base.diagnostics, to: &writer)
            writer.optional(versionManifest) { $1.write(to: &$0) }
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
            writer.array(output.coverage) { writer, coverage in
                writer.string(coverage.locale)
                for count in [coverage.translated, coverage.stale, coverage.missing] { writer.int(count) }
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

    /// `tables`: the file's tables and index, when it holds any.
    private init(reading reader: inout BinaryReader, tables parts: (tables: HandedOverPart, index: HandedOverPart?)?)
        throws(BinaryReader.Malformed)
    {
        typealias Malformed = BinaryReader.Malformed
        let stamp = { (reader: inout BinaryReader) throws(Malformed) in try FileStamp(reading: &reader) }
        context = try reader.optional { reader throws(Malformed) in
            (try reader.string(), Set(try reader.strings()), Set(try reader.strings()))
        }
        var tables: Tables?
        base = try reader.optional { reader throws(Malformed) in
            let (version, builtAt, diagnostics) = (VersionID(try reader.int()), try reader.date(), try Self.diagnostics(&reader))
            tables = try reader.optional { reader throws(Malformed) in
                guard let parts else { throw Malformed() }
                return Tables(versionManifest: try Digest(reading: &reader), tables: parts.tables, index: parts.index)
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
            output.coverage = try reader.array { reader throws(Malformed) in
                LocaleCoverage(
                    locale: try reader.string(), translated: try reader.int(), stale: try reader.int(), missing: try reader.int())
            }
            outputs[pageID] = (key, output)
        }
        for _ in 0..<(try reader.count()) { assetDigests[try reader.string()] = try Digest(reading: &reader) }
        for _ in 0..<(try reader.count()) { treeChildren[try reader.string()] = (try reader.strings(), try reader.strings()) }
        guard reader.isAtEnd, (tables == nil) == (parts == nil) else { throw Malformed() }
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
