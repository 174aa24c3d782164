import Foundation
import Testing

@testable import QuireCore

/// A restarted `quire watch` starts from what the stopped one knew (`state/watch-cache`):
/// it parses nothing whose bytes it has seen, and publishes exactly what a fresh build publishes.
@Suite struct RestartCacheTests {
    private func watcher(_ fixture: SiteFixture) -> SiteBuilder {
        var options = BuildOptions()
        options.restartCache = true
        options.now = { Date(timeIntervalSince1970: 1_760_000_000) }
        return SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist, options: options)
    }

    private func site() throws -> SiteFixture {
        let fixture = try SiteFixture()
        try fixture.write(
            "title: A\nsections:\n  - type: cta_button\n    id: go\n    label: To B\n    action: navigate\n    destination: /b\n"
                + "  - type: divider\n    id: later\n    publish_at: 2030-01-01T00:00:00Z\n", to: "a.yaml")
        try fixture.write("title: B\nsections:\n  - type: markdown_block\n    id: text\n    body: \"Hello *there*\"\n", to: "b.yaml")
        try fixture.write("title: B (fr)\ntext.body: \"Bonjour *là*\"\nnot.a.key: x\n", to: "l10n/fr/b.yaml")
        return fixture
    }

    private func parsed(_ result: SiteBuildResult) -> Double {
        result.stageMilliseconds.first { $0.stage == "parse" }?.ms ?? 0
    }

    /// The file is written as it is encoded, a megabyte at a time: the same bytes as held whole,
    /// and a part of them is read where it is (a slice of the file's bytes).
    @Test func aSpilledWriterWritesTheBytesOfAHeldOne() throws {
        let strings = (0..<40_000).map { "entry \($0) " + String(repeating: "x", count: $0 % 90) }
        func encode(_ writer: inout BinaryWriter) {
            writer.string("head")
            writer.array(strings) { writer, string in
                writer.string(string)
                writer.int(string.count)
            }
            writer.fixedWidth(-7)
        }
        var held = BinaryWriter()
        encode(&held)
        var chunks: [[UInt8]] = []
        var spilled = BinaryWriter(spillingTo: { chunks.append($0) })
        encode(&spilled)
        spilled.spillHeld()
        #expect(held.bytes.count > 2 * BinaryWriter.spillSize && chunks.count >= 2)
        #expect(chunks.dropLast().allSatisfy { $0.count >= BinaryWriter.spillSize } && spilled.bytes.isEmpty)
        #expect(Array(chunks.joined()) == held.bytes && spilled.count == held.bytes.count)

        let file = [0xAA, 0xBB] + held.bytes
        var reader = BinaryReader(file[2...])
        #expect(try reader.string() == "head")
        let read = try reader.array { reader throws(BinaryReader.Malformed) in (try reader.string(), try reader.int()) }
        #expect(read.map(\.0) == strings && read.allSatisfy { $0.0.count == $0.1 })
        #expect(try reader.fixedWidth() == -7 && reader.isAtEnd)
    }

    /// A part of a file is read as it is parsed, a chunk at a time: values that straddle two
    /// chunks (a string longer than one) read as they were written, and the part is taken only
    /// when all of it was read and it hashes to its digest.
    @Test func aPartOfAFileIsReadAChunkAtATime() throws {
        let long = String(repeating: "é", count: 700_000)  // 1.4 MB: more than a chunk
        let strings = (0..<30_000).map { "entry \($0) " + String(repeating: "x", count: $0 % 90) } + [long, "after"]
        var writer = BinaryWriter()
        writer.array(strings) { writer, string in
            writer.string(string)
            writer.int(-string.utf8.count)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("quire-parts-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (head, tail) = ([UInt8](repeating: 7, count: 5), [UInt8](repeating: 9, count: 3))
        try Data(head + writer.bytes + tail).write(to: URL(fileURLWithPath: path))
        let file = try OpenedFile(path)
        let range = head.count..<head.count + writer.bytes.count
        let read = { (reader: inout BinaryReader) throws(BinaryReader.Malformed) in
            try reader.array { reader throws(BinaryReader.Malformed) in (try reader.string(), try reader.int()) }
        }
        let digest = SHA256.digest(writer.bytes)
        let part = RestartCache.HandedOverPart(FilePart(file, range), digest: digest)
        let values = try #require(part.parse(read))
        #expect(values.map(\.0) == strings && values.allSatisfy { $0.0.utf8.count == -$0.1 })
        #expect(part.parse(read) == nil, "taken once")
        #expect(RestartCache.HandedOverPart(FilePart(file, range), digest: SHA256.digest(head)).parse(read) == nil, "another digest")
        #expect(RestartCache.HandedOverPart(FilePart(file, range.dropLast()), digest: digest).parse(read) == nil, "a part cut short")
        #expect(RestartCache.HandedOverPart(FilePart(file, range.lowerBound..<range.upperBound + 2), digest: digest).parse(read) == nil)
        #expect(RestartCache.HandedOverPart(FilePart(file, range.lowerBound..<range.upperBound + 40), digest: digest).parse(read) == nil)
    }

    /// A string of a kind that repeats comes back as one string for equal values (one
    /// allocation, as when it was written); short ones are held inline anyway.
    @Test func equalSharedStringsAreOneString() throws {
        let values = (0..<5_000).map { "https://images.example.com/hero/\($0 % 1_700).jpg" } + ["short", "", "é 16 bytes long!"]
        var writer = BinaryWriter()
        writer.strings(values)
        writer.strings(values)
        var reader = BinaryReader(writer.bytes)
        let shared = try reader.sharedStrings()
        let plain = try reader.strings()
        #expect(shared == values && plain == values && reader.isAtEnd)
        func storage(_ string: String) -> UnsafePointer<UInt8>? {
            var string = string
            return string.withUTF8 { $0.baseAddress }
        }
        let long = values.indices.filter { values[$0].utf8.count > 15 }
        var first: [String: UnsafePointer<UInt8>?] = [:]
        for index in long where first[values[index]] == nil { first[values[index]] = storage(shared[index]) }
        #expect(first.count == 1_701)
        #expect(long.allSatisfy { storage(shared[$0]) == first[values[$0]]! })
        #expect(Set(long.map { storage(plain[$0]) }).count == long.count)
        var malformed = BinaryWriter()
        malformed.int(20)
        [UInt8](repeating: 0xFF, count: 20).withUnsafeBytes { malformed.raw($0) }
        var malformedReader = BinaryReader(malformed.bytes)
        #expect(throws: BinaryReader.Malformed.self) { try malformedReader.sharedString() }
    }

    @Test func aRestartParsesNothingItHasSeenAndPublishesTheSame() throws {
        let fixture = try site()
        let first = watcher(fixture)
        let built = first.build()
        #expect(!built.hasErrors && parsed(built) > 0)
        first.saveRestartCache()
        let cache = try #require(FileManager.default.contents(atPath: "\(fixture.dist)/site/state/watch-cache"))
        #expect(cache.count > 100)
        // Written just before they were read: no stamp, so a restart reads them (`FileStamp`).
        let recorded = RestartCache.read("\(fixture.dist)/site/state/watch-cache", previews: true, displayRoot: "\(fixture.pages)/site")
        #expect(recorded.map { !$0.sources.isEmpty && $0.sources.values.allSatisfy { $0.stamp == nil } } == true)

        let restarted = watcher(fixture).build()
        #expect(built.outcome == .published(VersionID(1), isCurrent: true))
        #expect(restarted.outcome == .unchanged(VersionID(1)))
        #expect(parsed(restarted) == 0, "\(restarted.stageMilliseconds)")
        #expect(restarted.filesRendered == 0)
        // What the build reports is what the stopped watcher's first build reported.
        #expect(fixture.lines(restarted) == fixture.lines(built))
        #expect(restarted.scheduled.map(\.pageID) == built.scheduled.map(\.pageID) && !built.scheduled.isEmpty)
        #expect(restarted.coverage == built.coverage)
        #expect(restarted.pagesTotal == built.pagesTotal)

        // A page edited while no watcher ran: only it is rendered, and the version is a fresh build's.
        try fixture.write("title: B2\nsections:\n  - type: markdown_block\n    id: text\n    body: \"Hello *there*\"\n", to: "b.yaml")
        let edited = watcher(fixture).build()
        #expect(edited.pagesRebuilt == ["b"], "\(edited.pagesRebuilt)")
        #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.fresh(fixture))
    }

    /// Retention after a restart marks the versions it keeps from the recorded tree children,
    /// not by parsing every kept version's folder manifests again.
    /// A restart on the version the stopped watcher published is a delta of what changed while
    /// no watcher ran, and publishes, reports and lists what a build from scratch does.
    @Test func aRestartPublishesWhatChangedAsADelta() throws {
        let fixture = try SiteFixture(from: nil)
        try fixture.write(FeedTests.siteYAML, to: "site.yaml")
        let link = { (to: String) in
            "  - type: cta_button\n    id: to-\(to)\n    label: \(to)\n    action: navigate\n    destination: /\(to)\n"
        }
        try fixture.write(
            "title: A\nsections:\n" + link("b") + "  - type: divider\n    id: later\n    publish_at: 2030-01-01T00:00:00Z\n", to: "a.yaml")
        // e links to a page to come and to one to go.
        try fixture.write("title: E\nsections:\n" + link("c") + link("d"), to: "e.yaml")
        try fixture.write("title: B\nsections:\n  - type: markdown_block\n    id: text\n    body: \"Hello *there*\"\n", to: "b.yaml")
        try fixture.write("title: B (fr)\ntext.body: \"Bonjour *là*\"\n", to: "l10n/fr/b.yaml")
        try fixture.write("title: D\nsections:\n  - type: divider\n", to: "d.yaml")
        for day in 1...3 { try fixture.write(FeedTests.news("News \(day)", day: day, tags: "tags: [guide]\n"), to: "news/n\(day).yaml") }
        try fixture.write(bytes: SiteFixture.png("one"), to: "assets/logo.png")
        let clock = FeedTests.Clock()
        var options = BuildOptions()
        options.restartCache = true
        options.now = { clock.date }
        let watcher = { SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist, options: options) }
        let first = watcher()
        #expect(fixture.lines(first.build()).map { $0.prefix(11) } == ["site/e.yaml"])
        first.saveRestartCache()

        // While no watcher runs: pages edited, added and removed, a translation and a feed entry
        // added, an asset's bytes, a stray file, and a scheduled section reached.
        try fixture.write("title: B2\nsections:\n  - type: markdown_block\n    id: text\n    body: \"Hello *there*\"\n", to: "b.yaml")
        try fixture.write("title: C\nsections:\n  - type: divider\n", to: "c.yaml")
        try fixture.remove("d.yaml")
        try fixture.write("title: News 1 (fr)\n", to: "l10n/fr/news/n1.yaml")
        try fixture.write(FeedTests.news("News 4", day: 4), to: "news/n4.yaml")
        try fixture.write(bytes: SiteFixture.png("two"), to: "assets/logo.png")
        try fixture.write("notes", to: "notes.txt")
        clock.date = Date(timeIntervalSince1970: 1_900_000_000)  // 2030-03-17

        let builder = watcher()
        let restarted = builder.build()
        #expect(restarted.builtAsDelta)
        // What the next save edits has nothing left to write.
        var (index, feeds) = (try #require(builder.burst.base?.pageIndex), try #require(builder.burst.base?.feeds))
        #expect(index.files().files.isEmpty && feeds.files().files.isEmpty)
        #expect(restarted.outcome == .published(VersionID(2), isCurrent: true))
        #expect(restarted.pagesRebuilt == ["a", "b", "c", "news/n1", "news/n4"], "\(restarted.pagesRebuilt)")
        #expect(fixture.lines(restarted).contains { $0.hasPrefix("site/e.yaml") && $0.contains("'/d'") })
        let fresh = fixture.root + "/fresh-dist"
        let scratch = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fresh, options: options).build()
        #expect(
            IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.snapshot(fresh, site: fixture.site))
        #expect(fixture.lines(restarted) == fixture.lines(scratch) && fixture.lines(scratch).count == 2)
        #expect(restarted.pagesTotal == scratch.pagesTotal && restarted.coverage == scratch.coverage)
        #expect(restarted.scheduled == scratch.scheduled && restarted.feeds == scratch.feeds)
        let manifest = { (dist: String) in
            (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dist)/site/current/manifest.json"))))
                .flatMap { $0 as? [String: Any] }.map {
                    $0.filter { ["pages", "coverage", "vocabulary", "title"].contains($0.key) } as NSDictionary
                }
        }
        #expect(manifest(fixture.dist) == manifest(fresh) && manifest(fresh) != nil)

        // Settings changed meanwhile: the full path, to the same end.
        try fixture.write(FeedTests.siteYAML.replacingOccurrences(of: "ttl: 120", with: "ttl: 60"), to: "site.yaml")
        let settingsChanged = watcher()
        _ = settingsChanged.build()
        settingsChanged.saveRestartCache()
        try fixture.remove("c.yaml")
        try fixture.write(FeedTests.siteYAML, to: "site.yaml")
        let full = watcher().build()
        #expect(!full.builtAsDelta && full.outcome == .published(VersionID(4), isCurrent: true))
        let again = fixture.root + "/fresh-dist-2"
        _ = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: again, options: options).build()
        #expect(
            IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.snapshot(again, site: fixture.site))
    }

    @Test func aRestartKnowsTheTreesOfEveryKeptVersion() throws {
        let fixture = try site()
        let settings = try String(contentsOfFile: "\(fixture.siteFolder)/site.yaml", encoding: .utf8)
        try fixture.write(settings + "\nkeep: 3\n", to: "site.yaml")
        let first = watcher(fixture)
        _ = first.build()
        try fixture.write("title: B2\nsections:\n  - type: markdown_block\n    id: text\n    body: \"Hello *there*\"\n", to: "b.yaml")
        let absolute = URL(fileURLWithPath: fixture.siteFolder).standardizedFileURL.path
        #expect(first.build(changed: ["\(absolute)/b.yaml"]).outcome == .published(VersionID(2), isCurrent: true))
        first.saveRestartCache()

        let restarted = watcher(fixture)
        #expect(restarted.build().outcome == .unchanged(VersionID(2)))
        let trees = try FileManager.default.contentsOfDirectory(atPath: "\(fixture.dist)/\(fixture.site)/trees").filter {
            !$0.hasSuffix(".json")  // each tree's manifest, beside its folder
        }
        let children = try restarted.openStore().treeChildren
        #expect(trees.count > 4)
        #expect(trees.filter { !children.knows($0) } == [], "trees of v000001 and v000002 alike")
    }

    /// The newest version's index comes from the restart file, as the version's manifests give
    /// it: a restart publishes its delta without reading one of them (they are moved away here).
    @Test func aRestartTakesTheVersionsIndexFromTheFile() throws {
        let fixture = try site()
        let first = watcher(fixture)
        _ = first.build()
        first.saveRestartCache()
        let store = try first.openStore()
        let cache = RestartCache.read("\(fixture.dist)/site/state/watch-cache", previews: true, displayRoot: "\(fixture.pages)/site")
        let tables = try #require(cache?.tables(of: VersionID(1), reader: store.reader))
        let read = { (reader: inout BinaryReader) throws(BinaryReader.Malformed) in try FileIndex(reading: &reader, layout: store.layout) }
        let recorded = try #require(tables.index?.parse(read))
        #expect(tables.index?.parse(read) == nil, "a part is parsed once")
        let parsed = try FileIndex(manifest: store.reader.manifest(of: VersionID(1)), trees: TreeReader(layout: store.layout))
        #expect(recorded.files == parsed.files && parsed.files.count > 5)
        #expect(recorded.folders.mapValues(\.id) == parsed.folders.mapValues(\.id))
        #expect(recorded.totals.mapValues { [$0.files, $0.bytes] } == parsed.totals.mapValues { [$0.files, $0.bytes] })
        let (path, file) = try #require(parsed.files.first { $0.key.hasSuffix(".json") })
        #expect(recorded.storedFile(sha256: file.sha256) == parsed.location(of: path)?.storedPath)
        var writer = BinaryWriter()
        recorded.write(to: &writer)
        var whole = BinaryReader(writer.bytes)
        #expect(try FileIndex(reading: &whole, layout: store.layout).files == recorded.files)
        var short = BinaryReader(writer.bytes.dropLast())
        #expect(throws: BinaryReader.Malformed.self) { try FileIndex(reading: &short, layout: store.layout) }

        let trees = "\(fixture.dist)/site/trees"
        let aside = fixture.root + "/manifests-aside"
        try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
        let manifests = try FileManager.default.contentsOfDirectory(atPath: trees).filter { $0.hasSuffix(".json") }
        for name in manifests { try FileManager.default.moveItem(atPath: "\(trees)/\(name)", toPath: "\(aside)/\(name)") }
        try fixture.write("title: B2\nsections:\n  - type: markdown_block\n    id: text\n    body: \"Hello *there*\"\n", to: "b.yaml")
        let restarted = watcher(fixture).build()
        #expect(restarted.builtAsDelta && restarted.outcome == .published(VersionID(2), isCurrent: true))
        #expect(restarted.pagesRebuilt == ["b"])
        for name in manifests where !FileManager.default.fileExists(atPath: "\(trees)/\(name)") {
            try FileManager.default.moveItem(atPath: "\(aside)/\(name)", toPath: "\(trees)/\(name)")
        }
        #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.fresh(fixture))
    }

    /// A watcher builds the site and stops; while none runs, b is titled "Other" and `quire
    /// build` publishes it (after `meanwhile`). Returns b's source as it was, and that build.
    private func publishOtherWhileStopped(_ fixture: SiteFixture, meanwhile: () throws -> Void = {}) throws -> (
        original: String, published: SiteBuildResult
    ) {
        let first = watcher(fixture)
        _ = first.build()
        first.saveRestartCache()
        let original = try String(contentsOfFile: "\(fixture.siteFolder)/b.yaml", encoding: .utf8)
        try fixture.write(original.replacingOccurrences(of: "title: B", with: "title: Other"), to: "b.yaml")
        try meanwhile()
        var once = BuildOptions()
        once.keepsSources = false
        return (original, SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist, options: once).build())
    }

    @Test func anOutputAnotherProcessReplacedIsRenderedAgain() throws {
        let fixture = try site()
        // While no watcher runs: b changes and is published by `quire build`, then changes back.
        let (original, _) = try publishOtherWhileStopped(fixture)
        #expect(try fixture.published("en/b.json").contains("Other"))
        try fixture.write(original, to: "b.yaml")
        // b's source hashes as the cache says, but the newest version holds other files for it.
        let restarted = watcher(fixture).build()
        #expect(restarted.pagesRebuilt == ["b"], "\(restarted.pagesRebuilt)")
        #expect(try fixture.published("en/b.json").contains("\"B\""))
        #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.fresh(fixture))
    }

    /// A file whose stamp (`FileStamp`) is the one taken when it was last read is not read again
    /// at a restart; any write moves its change time, so one written since is read, even with its
    /// size and modification time put back as they were.
    @Test func aRestartReadsOnlyTheFilesWhoseStampMoved() throws {
        let fixture = try site()
        // A stamp is taken only of a file that changed over two seconds before it was read.
        Thread.sleep(forTimeInterval: Double(FileStamp.settledAfterNanoseconds) / 1e9 + 0.1)
        let first = watcher(fixture)
        _ = first.build()
        first.saveRestartCache()
        let cachePath = "\(fixture.dist)/site/state/watch-cache"
        let cache = try #require(RestartCache.read(cachePath, previews: true, displayRoot: "\(fixture.pages)/site"))
        #expect(!cache.sources.isEmpty && cache.sources.values.allSatisfy { $0.stamp != nil })
        #expect(!cache.translations.isEmpty && cache.translations.values.allSatisfy { $0.stamp != nil })

        // Recorded with other bytes: still unchanged while its stamp is the same, read once it is not.
        let root = URL(fileURLWithPath: fixture.siteFolder).standardizedFileURL.path
        let b = "\(root)/b.yaml"
        let recorded = try #require(cache.sources[b])
        let inventory = SiteInventory.scan(root: root, site: fixture.site, displayRoot: "\(fixture.pages)/site")
        let changes = { (stamp: FileStamp?) in
            var other = cache
            other.sources[b] = CachedSource(digest: SHA256.digest(Array("other".utf8)), page: recorded.page, stamp: stamp)
            return RestartChanges.paths(
                in: inventory, skipping: nil, cache: other, diagnostics: [], displayRoot: "\(fixture.pages)/site",
                reader: SourceFileReader())
        }
        #expect(changes(recorded.stamp).isEmpty)
        #expect(changes(nil) == [b])

        // b written in place (the same inode) with bytes of the same size, its modification time
        // put back: only its change time tells.
        var before = stat()
        #expect(stat(b, &before) == 0)
        let original = try String(contentsOfFile: b, encoding: .utf8)
        let handle = try #require(FileHandle(forWritingAtPath: b))
        try handle.write(contentsOf: Data(original.replacingOccurrences(of: "title: B", with: "title: C").utf8))
        try handle.close()
        let times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, b, times, 0) == 0)
        var after = stat()
        #expect(stat(b, &after) == 0)
        #expect(after.st_ino == before.st_ino && after.st_size == before.st_size)
        #expect((after.st_mtim.tv_sec, after.st_mtim.tv_nsec) == (before.st_mtim.tv_sec, before.st_mtim.tv_nsec))
        let restarted = watcher(fixture).build()
        #expect(restarted.builtAsDelta && restarted.pagesRebuilt == ["b"], "\(restarted.pagesRebuilt)")
        #expect(try fixture.published("en/b.json").contains("\"C\""))
    }

    /// The file's tables are of the version it names: a version published again under that
    /// number (the versions removed while no watcher ran) is not that one.
    @Test func aVersionPublishedAgainUnderItsNumberIsNotTheRecordedOne() throws {
        let fixture = try site()
        let (original, published) = try publishOtherWhileStopped(fixture) {
            for folder in ["versions", "trees", "current"] { try FileManager.default.removeItem(atPath: "\(fixture.dist)/site/\(folder)") }
        }
        #expect(published.outcome == .published(VersionID(1), isCurrent: true))
        try fixture.write(original, to: "b.yaml")
        // Every source hashes as the file says, and v000001 is newest, but not the one it names.
        let restarted = watcher(fixture).build()
        #expect(!restarted.builtAsDelta)
        #expect(restarted.pagesRebuilt == ["b"], "\(restarted.pagesRebuilt)")
        #expect(try fixture.published("en/b.json").contains("\"B\""))
        #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.fresh(fixture))
    }

    @Test func aDamagedOrForeignCacheIsNoCache() throws {
        let fixture = try site()
        let first = watcher(fixture)
        _ = first.build()
        first.saveRestartCache()
        let path = "\(fixture.dist)/site/state/watch-cache"
        let bytes = try #require(FileManager.default.contents(atPath: path))
        // The trailer: the body's, tables' and index's lengths, then a digest of each.
        let trailer = bytes.count - 3 * (8 + 33)
        let lengths = (0..<3).map { part in bytes[(trailer + 8 * part)...].prefix(8).reversed().reduce(0) { $0 << 8 | Int($1) } }
        let body = trailer - lengths.reduce(0, +)
        let tables = body + lengths[0]
        #expect(lengths.allSatisfy { $0 > 0 } && body > 0)
        func flipped(at offset: Int, _ bits: UInt8 = 0x20) -> Data {  // a letter's case, say: it would still decode
            var damaged = bytes
            damaged[offset] ^= bits
            return damaged
        }
        let noCache = [
            bytes.prefix(bytes.count / 2), Data("{}".utf8), flipped(at: body + lengths[0] / 2), flipped(at: trailer, 0x01),
            flipped(at: trailer + 3 * 8 + 10),  // in the body's digest
        ]
        for damaged in noCache {
            try damaged.write(to: URL(fileURLWithPath: path))
            let result = watcher(fixture).build()
            #expect(!result.hasErrors && parsed(result) > 0)
            #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.fresh(fixture))
        }
        // The tables or the index damaged: the pages are taken from the file, the version's tables
        // and index from the version itself.
        for damaged in [
            flipped(at: tables + lengths[1] / 2), flipped(at: tables + lengths[1] + lengths[2] / 2), flipped(at: bytes.count - 1),
        ] {
            try damaged.write(to: URL(fileURLWithPath: path))
            let result = watcher(fixture).build()
            #expect(!result.hasErrors && parsed(result) == 0)
            #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.fresh(fixture))
        }
        // Written by a watcher without previews: not this one's.
        var options = BuildOptions()
        options.restartCache = true
        options.previews = false
        let other = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist, options: options)
        _ = other.build()
        other.saveRestartCache()
        #expect(parsed(watcher(fixture).build()) > 0)
    }
}
