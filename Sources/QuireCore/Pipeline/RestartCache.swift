import Foundation
import QuireModel

/// What a watcher knew when it stopped (`IncrementalState`), so that a restarted one costs what
/// changed: `state/watch-cache.json`, never served or pushed. Nothing in it is trusted as it is:
/// a source or translation file is reused only while its bytes hash the same and the validation
/// context (settings, assets, page ids) is the same, and a page's output only while its key is
/// the same and the newest version holds each of its files with the same input digest
/// (`IncrementalState.keepOutputs(matching:)`). A file that is missing, damaged or of another
/// format is no cache at all.
///
///     { "format", "previews", "root", "context": [settings, [page ids], [assets]],
///       "base": [version, built at, [diagnostics]],
///       "sources": [[path, digest, page id, file, flags, timetable, [links], [diagnostics]]],
///       "translations": [[path, digest, locale | null, [warnings] | diagnostic]],
///       "outputs": [[page id, key (`OutputKey.cached`), [paths], files digest, [diagnostics],
///                    [[locale, translated, stale, missing]]]],
///       "assets": [[path, digest]],
///       "trees": [[tree id, [subtree ids], [part ids]]] }
///
/// `base` is what the last publish left for the next delta (`DeltaBase`) beyond the pages: the
/// version it published, when it was built, and every diagnostic. A restarted watcher whose
/// newest version is still that one rebuilds its delta base from it (`SiteBuilder.restartBuild`).
///
/// A tree's children are the one thing kept as they are: a tree id names its manifest's bytes,
/// so they never change, and retention marks from them without parsing the manifests of the
/// versions it keeps (a folder of 10,000 entries each).
struct RestartCache: @unchecked Sendable {
    static let format = 3
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

    static func path(_ layout: SiteLayout) -> String { layout.state + "/watch-cache.json" }

    init(_ state: IncrementalState) {
        sources = state.sources
        translations = state.translations
        outputs = state.outputs
        assetDigests = state.assetDigests
        context = state.lastContext
    }

    /// The cache at `path` when it was written by a watcher with the same `previews`, naming the
    /// site's folder as `displayRoot` (diagnostics kept in it say it).
    static func read(_ path: String, previews: Bool, displayRoot: String) -> RestartCache? {
        guard let bytes = try? FileSystem.readFile(path), let root = StoredJSONReader.parse(bytes),
            root["format"]?.intValue == format, root["previews"]?.boolValue == previews, root["root"]?.stringValue == displayRoot
        else { return nil }
        return RestartCache(decoding: root)
    }

    /// Replaces the file in one rename, so a reader never sees half of it.
    func write(_ path: String, previews: Bool, displayRoot: String) throws(StoreError) {
        try FileSystem.replaceFile(path, JSONWriter(pretty: false).bytes(encoded(previews: previews, displayRoot: displayRoot)))
    }

    // MARK: Encoding

    private func encoded(previews: Bool, displayRoot: String) -> JSONValue {
        var root = JSONObject()
        root["format"] = .integer(Self.format)
        root["previews"] = .bool(previews)
        root["root"] = .string(displayRoot)
        if let context {
            root["context"] = [.string(context.settings), Self.strings(context.pageIDs.sorted()), Self.strings(context.assets.sorted())]
        }
        if let base {
            root["base"] = [.string(base.version.description), Self.encode(base.builtAt), .array(base.diagnostics.map(Self.encode))]
        }
        root["sources"] = .array(sources.map { path, cached in Self.encode(path: path, cached) })
        root["translations"] = .array(
            translations.map { path, cached in
                let parsed: [JSONValue]
                switch cached.parsed {
                case .success(let summary):
                    parsed = [summary.locale.map(JSONValue.string) ?? .null, .array(summary.warnings.map(Self.encode))]
                case .failure(let diagnostic): parsed = [.null, Self.encode(diagnostic)]
                }
                return .array([.string(path), .string(cached.digest.text)] + parsed)
            })
        root["outputs"] = .array(
            outputs.map { pageID, entry in
                [
                    .string(pageID), .string(entry.key.cached),
                    .array(entry.output.files.map { .string($0.path) }), .string(Self.filesDigest(entry.output.files).text),
                    .array(entry.output.diagnostics.map(Self.encode)),
                    .array(
                        entry.output.coverage.sorted { $0.key < $1.key }.map { locale, counts in
                            [.string(locale), .integer(counts.translated), .integer(counts.stale), .integer(counts.missing)]
                        }),
                ]
            })
        root["assets"] = .array(assetDigests.map { [.string($0.key), .string($0.value.text)] })
        root["trees"] = .array(
            treeChildren.map { id, children in [.string(id), Self.strings(children.subtrees), Self.strings(children.parts)] })
        return .object(root)
    }

    private static func encode(path: String, _ cached: CachedSource) -> JSONValue {
        let page = cached.page
        let flags = (page.hasModel ? 1 : 0) | (page.isDraft ? 2 : 0) | (page.usesDrillCarousel ? 4 : 0)
        return [
            .string(path), .string(cached.digest.text), .string(page.pageID), .string(page.file), .integer(flags),
            page.timetable.map(encode) ?? .null, strings(page.linkedPageIDs.sorted()), .array(page.diagnostics.map(encode)),
        ]
    }

    private static func encode(_ timetable: PageTimetable) -> JSONValue {
        .array([encode(timetable.schedule)] + timetable.sections.map { [.string($0.name), encode($0.schedule)] })
    }

    private static func encode(_ schedule: Schedule) -> JSONValue {
        .array([schedule.publishAt, schedule.expiresAt].map { $0.map(encode) ?? .null })
    }

    /// Dates as the bits of their `Double`: read back equal, not rounded.
    private static func encode(_ date: Date) -> JSONValue { .string(String(date.timeIntervalSince1970.bitPattern)) }

    private static func date(_ value: JSONValue) -> Date? {
        value.stringValue.flatMap(UInt64.init).map { Date(timeIntervalSince1970: Double(bitPattern: $0)) }
    }

    private static func encode(_ diagnostic: Diagnostic) -> JSONValue {
        [
            .string(diagnostic.severity.rawValue), .string(diagnostic.file), .integer(diagnostic.position.line),
            .integer(diagnostic.position.column), .string(diagnostic.keyPath), .string(diagnostic.message),
        ]
    }

    private static func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }

    // MARK: Decoding

    /// Entries that do not decode are left out (their files are read and parsed again).
    private init(decoding root: JSONValue) {
        if let context = root["context"]?.arrayValue, context.count == 3, let settings = context[0].stringValue {
            self.context = (settings, Set(Self.strings(context[1])), Set(Self.strings(context[2])))
        }
        if let fields = root["base"]?.arrayValue, fields.count == 3, let version = fields[0].stringValue.flatMap(VersionID.init),
            let builtAt = Self.date(fields[1]), let diagnostics = Self.diagnostics(fields[2])
        {
            base = (version, builtAt, diagnostics)
        }
        for entry in root["sources"]?.arrayValue ?? [] {
            guard let fields = entry.arrayValue, fields.count == 8, let path = fields[0].stringValue, let digest = fields[1].stringValue,
                let pageID = fields[2].stringValue, let file = fields[3].stringValue, let flags = fields[4].intValue,
                let diagnostics = Self.diagnostics(fields[7])
            else { continue }
            var timetable: PageTimetable?
            if fields[5] != .null {
                guard let decoded = Self.timetable(fields[5], pageID: pageID) else { continue }
                timetable = decoded
            }
            let page = ProcessedPage(
                restoring: pageID, file: file, sourceDigest: Digest(digest), hasModel: flags & 1 != 0, isDraft: flags & 2 != 0,
                timetable: timetable, usesDrillCarousel: flags & 4 != 0, diagnostics: diagnostics,
                linkedPageIDs: Set(Self.strings(fields[6])))
            sources[path] = CachedSource(digest: page.sourceDigest, page: page)
        }
        for entry in root["translations"]?.arrayValue ?? [] {
            guard let fields = entry.arrayValue, fields.count == 4, let path = fields[0].stringValue, let digest = fields[1].stringValue
            else { continue }
            if let warnings = Self.diagnostics(fields[3]) {
                translations[path] = CachedTranslation(
                    digest: Digest(digest), parsed: .success(TranslationSummary(locale: fields[2].stringValue, warnings: warnings)))
            } else if let diagnostic = Self.diagnostic(fields[3]) {
                translations[path] = CachedTranslation(digest: Digest(digest), parsed: .failure(diagnostic))
            }
        }
        for entry in root["outputs"]?.arrayValue ?? [] {
            guard let fields = entry.arrayValue, fields.count == 6, let pageID = fields[0].stringValue, let key = fields[1].stringValue,
                let files = fields[2].arrayValue, let filesDigest = fields[3].stringValue, let diagnostics = Self.diagnostics(fields[4]),
                let coverage = fields[5].arrayValue
            else { continue }
            var output = PageOutput()
            output.diagnostics = diagnostics
            output.files = files.compactMap { file in file.stringValue.map { OutputFile(path: $0, content: .carried, inputDigest: "") } }
            for item in coverage {
                guard let fields = item.arrayValue, fields.count == 4, let locale = fields[0].stringValue,
                    let translated = fields[1].intValue, let stale = fields[2].intValue, let missing = fields[3].intValue
                else { continue }
                output.coverage[locale] = LocaleCoverage(locale: locale, translated: translated, stale: stale, missing: missing)
            }
            guard output.files.count == files.count, output.coverage.count == coverage.count else { continue }
            guard let key = OutputKey(cached: key) else { continue }
            outputs[pageID] = (key, output)
            filesDigests[pageID] = Digest(filesDigest)
        }
        for entry in root["assets"]?.arrayValue ?? [] {
            guard let pair = entry.arrayValue, pair.count == 2, let path = pair[0].stringValue, let digest = pair[1].stringValue else {
                continue
            }
            assetDigests[path] = Digest(digest)
        }
        for entry in root["trees"]?.arrayValue ?? [] {
            guard let fields = entry.arrayValue, fields.count == 3, let id = fields[0].stringValue,
                let subtrees = fields[1].arrayValue?.compactMap(\.stringValue), let parts = fields[2].arrayValue?.compactMap(\.stringValue)
            else { continue }
            treeChildren[id] = (subtrees, parts)
        }
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

    private static func strings(_ value: JSONValue) -> [String] { value.arrayValue?.compactMap(\.stringValue) ?? [] }

    private static func diagnostics(_ value: JSONValue) -> [Diagnostic]? {
        guard let items = value.arrayValue else { return nil }
        let decoded = items.compactMap(diagnostic)
        return decoded.count == items.count ? decoded : nil
    }

    private static func diagnostic(_ value: JSONValue) -> Diagnostic? {
        guard let fields = value.arrayValue, fields.count == 6, let severity = fields[0].stringValue.flatMap(Diagnostic.Severity.init),
            let file = fields[1].stringValue, let line = fields[2].intValue, let column = fields[3].intValue,
            let keyPath = fields[4].stringValue, let message = fields[5].stringValue
        else { return nil }
        return Diagnostic(severity, file: file, at: SourcePosition(line: line, column: column), keyPath: keyPath, message)
    }

    private static func timetable(_ value: JSONValue, pageID: String) -> PageTimetable? {
        guard let items = value.arrayValue, let first = items.first, let pageSchedule = schedule(first) else { return nil }
        var sections: [PageTimetable.Section] = []
        for item in items.dropFirst() {
            guard let pair = item.arrayValue, pair.count == 2, let name = pair[0].stringValue, let sectionSchedule = schedule(pair[1])
            else { return nil }
            sections.append(PageTimetable.Section(name: name, schedule: sectionSchedule))
        }
        return PageTimetable(pageID: pageID, schedule: pageSchedule, sections: sections)
    }

    private static func schedule(_ value: JSONValue) -> Schedule? {
        guard let pair = value.arrayValue, pair.count == 2 else { return nil }
        var dates: [Date?] = []
        for item in pair {
            if item == .null {
                dates.append(nil)
            } else if let date = date(item) {
                dates.append(date)
            } else {
                return nil
            }
        }
        return Schedule(publishAt: dates[0], expiresAt: dates[1])
    }
}

extension PageTimetable {
    init(pageID: String, schedule: Schedule, sections: [Section]) {
        self.pageID = pageID
        self.schedule = schedule
        self.sections = sections
    }
}
