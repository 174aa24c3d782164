import Foundation
import QuireModel
import Testing

@testable import QuireCore

/// Folders that retention removes become spares of their folder's newer trees
/// (`RecycledFolders`): a big folder's spare then costs what changed since it was published,
/// and what a save publishes through it is what linking every entry publishes.
@Suite struct PublishRecycledFoldersTests {
    typealias Pair = PublishSpareFoldersTests.Pair

    /// A folder of 600 pages: big enough for its removed trees to be kept.
    static let catalog = (0..<600).map { page(String(format: "en/all/p-%03d.json", $0), #"{"n":\#($0)}"#) }

    /// One edit in the big folder published to both stores, then retention on both, as
    /// `quire watch` runs them.
    private func edit(_ pair: Pair, _ number: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try pair.delta(
            files: [page(String(format: "en/all/p-%03d.json", number * 7), #"{"n":"edit \#(number)"}"#)], sourceLocation: sourceLocation)
        for store in [pair.withSpares, pair.without] { try store.operations.gc(keep: 2) }
    }

    /// The folders in the spares' staging lease.
    private func leaseEntries(_ pair: Pair) throws -> (folder: String, names: [String]) {
        let staging = pair.spared.path + "/trex/staging"
        let lease = try #require(try FileSystem.list(staging).first { $0.hasPrefix(SpareFolders.prefix) && !$0.hasSuffix(".lock") })
        return (staging + "/" + lease, try FileSystem.list(staging + "/" + lease))
    }

    @Test func removedFoldersBecomeSparesOfTheirFoldersNewerTrees() throws {
        let pair = try Pair(PublishSpareFoldersTests.site + Self.catalog)
        for number in 1...6 { try edit(pair, number) }
        // From the third edit on, the big folder's spare was the tree retention removed two
        // versions before; `en` (two entries) is linked anew each time.
        #expect(pair.withSpares.spareFolders.recycled == 4)
        #expect(pair.withSpares.spareFolders.taken == 12, "en/all and en, every edit")
        // The last gc removed one more tree of the big folder: it waits in the lease for the next round.
        #expect(try leaseEntries(pair).names.filter(RecycledFolders.holds).count == 1)
        pair.withSpares.spareFolders.prepare { false }
        #expect(pair.withSpares.spareFolders.recycled == 5)
        #expect(try leaseEntries(pair).names.filter(RecycledFolders.holds).isEmpty)
    }

    /// One edit in the big folder published to both stores, its spares made beforehand.
    private func editWithoutRetention(_ pair: Pair, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try pair.delta(files: [page("en/all/p-321.json", #"{"n":"\#(text)"}"#)], preparing: false, sourceLocation: sourceLocation)
    }

    /// The names in the spare of en/all's newest tree.
    private func bigFolderSpare(_ pair: Pair) throws -> [String] {
        let tree = try #require(pair.withSpares.reader.newestFolders().first { $0.key == "en/all" }?.value)
        return try FileSystem.list(try leaseEntries(pair).folder + "/" + tree.id)
    }

    @Test func aStoreWithFewerVersionsThanKeepMakesTheNextSparesFromAReserve() throws {
        // A second big folder, fr/all, that no edit changes.
        let untouched = (0..<600).map { page(String(format: "fr/all/p-%03d.json", $0), #"{"n":\#($0)}"#) }
        let pair = try Pair(PublishSpareFoldersTests.site + Self.catalog + untouched)
        let spares = pair.withSpares.spareFolders
        spares.prepare { false }
        // Retention at the next save will remove nothing (one version, `keep: 3`), but no save
        // has changed a folder yet.
        #expect(spares.reserve(keep: 3) { false } == 0)
        try editWithoutRetention(pair, "first")
        spares.prepare { false }
        #expect(spares.reserve(keep: 3) { false } == 1, "en/all, which the save changed; not fr/all")
        #expect(try leaseEntries(pair).names.filter(RecycledFolders.holds).count == 1)
        #expect(spares.reserve(keep: 3) { false } == 0, "its folder has a copy already")
        try editWithoutRetention(pair, "second")
        spares.prepare { false }
        #expect(spares.recycled == 1, "en/all's spare made from its reserve, not linked anew")
        #expect(try bigFolderSpare(pair).count == 600)
        #expect(spares.reserve(keep: 3) { false } == 0, "three versions and keep: 3: the next save's retention recycles")
        #expect(spares.reserve(keep: nil) { false } == 1, "no keep: every version stays, nothing is recycled")
        try editWithoutRetention(pair, "third")
        spares.prepare { false }
        #expect(spares.recycled == 2)
        #expect(try bigFolderSpare(pair).count == 600)
        try editWithoutRetention(pair, "fourth")
    }

    @Test func aReserveASaveStoppedIsFinishedFromItsTreeThenBroughtUpToDate() throws {
        let pair = try Pair(PublishSpareFoldersTests.site + Self.catalog)
        let spares = pair.withSpares.spareFolders
        spares.prepare { false }
        try editWithoutRetention(pair, "first")
        spares.prepare { false }
        var asked = 0
        // Stopped a few looks (one every 64 links) into its 600 entries.
        #expect(
            spares.reserve(keep: 3) {
                asked += 1
                return asked > 3
            } == 0)
        let (folder, names) = try leaseEntries(pair)
        let reserve = try #require(names.first(where: RecycledFolders.holds))
        let linked = try FileSystem.list(folder + "/" + reserve).count
        #expect(linked > 0 && linked < 600, "\(linked) of 600")
        try editWithoutRetention(pair, "while half made")
        spares.prepare { false }
        #expect(spares.recycled == 1)
        #expect(try bigFolderSpare(pair).count == 600, "the reserve finished, then brought up to date")
        try editWithoutRetention(pair, "through the finished reserve")
    }

    @Test func aStoreOpenedOnHistoryLearnsItsNewestTreesBeforeItsFirstRetention() throws {
        let pair = try Pair(PublishSpareFoldersTests.site + Self.catalog)
        for number in 1...3 { try edit(pair, number) }
        // A watcher started again: its store has read no tree yet.
        let restarted = try pair.spared.store()
        let trees = { (version: VersionID) throws -> [String] in try restarted.reader.index(of: version).folders.values.map(\.id) }
        let versions = try restarted.reader.allVersions()
        try #require(versions.count == 2)
        #expect(try !trees(versions[1]).contains(where: restarted.treeChildren.knows))
        restarted.reader.learnTrees(ofNewest: 1)
        #expect(try trees(versions[1]).allSatisfy(restarted.treeChildren.knows))
        #expect(try !Set(trees(versions[0])).subtracting(trees(versions[1])).contains(where: restarted.treeChildren.knows))
    }

    @Test func aStoreOpenedOnHistoryRecyclesTheBigTreesItsOlderVersionsHold() throws {
        let pair = try Pair(PublishSpareFoldersTests.site + Self.catalog)
        for number in 1...2 { try edit(pair, number) }
        // A watcher started again, with `keep: 2`: one older version, whose tree of en/all the
        // next retention removes.
        let restarted = try pair.spared.store()
        try restarted.spareFolders.keep()
        let newest = try #require(try restarted.reader.newestVersion())
        _ = try restarted.reader.index(of: newest)
        restarted.spareFolders.rememberTrees(ofNewest: 2)
        restarted.spareFolders.prepare { false }
        let edited = [page("en/all/p-123.json", #"{"n":"after the restart"}"#)]
        for store in [restarted, pair.without] {
            let delta = PublishDelta(
                base: newest, files: edited, removed: [], manifest: JSONObject([("locales", ["en", "fr"])]), buildRecord: JSONObject())
            #expect(try store.publish(delta) == .published(VersionID(newest.number + 1), isCurrent: true))
            try store.operations.gc(keep: 2)
        }
        restarted.spareFolders.prepare { false }
        #expect(restarted.spareFolders.recycled == 1, "en/all's spare made from the tree retention removed")
        let afterRecycling = [page("en/all/p-124.json", #"{"n":"from the recycled spare"}"#)]
        for store in [restarted, pair.without] {
            let delta = PublishDelta(
                base: VersionID(newest.number + 1), files: afterRecycling, removed: [], manifest: JSONObject([("locales", ["en", "fr"])]),
                buildRecord: JSONObject())
            #expect(try store.publish(delta) == .published(VersionID(newest.number + 2), isCurrent: true))
        }
        #expect(try restarted.operations.verify().isEmpty)
        #expect(pair.current(pair.spared) == pair.current(pair.plain))
        restarted.spareFolders.close()
    }

    private static func file(_ name: String, _ text: String) -> TreeManifest.Entry {
        let digest = SHA256.digest(Array(text.utf8))
        return .init(name: name, kind: .file(PublishedFile(sha256: digest, size: text.utf8.count, inputDigest: digest, metadata: nil)))
    }

    @Test func theDifferencesOfTwoManifestsAreTheEntriesTheirOtherPartsChange() throws {
        let names = (0..<3000).map { String(format: "p-%04d.json", $0) }
        let old = TreeManifest(entries: names.map { Self.file($0, $0) })
        try #require(old.parts.count > 10)
        // An entry with other bytes, one gone, one new, one with its bytes as before.
        let new = old.updatingParts([
            "p-0100.json": Self.file("p-0100.json", "edited").kind, "p-2000.json": nil,
            "p-2000a.json": Self.file("p-2000a.json", "new").kind, "p-2500.json": Self.file("p-2500.json", "p-2500.json").kind,
        ])
        let found = RecycledFolders.differences(from: old, to: new)
        #expect(found.removed == ["p-2000.json"])
        #expect(found.linked.sorted() == ["p-0100.json", "p-2000a.json"])
        #expect(RecycledFolders.differences(from: new, to: old).linked.sorted() == ["p-0100.json", "p-2000.json"])
        // A manifest of one run (under 512 entries) against one in parts: every entry compared.
        let small = TreeManifest(entries: names.prefix(400).map { Self.file($0, $0) })
        let grown = RecycledFolders.differences(from: small, to: new)
        #expect(grown.removed.isEmpty)
        #expect(grown.linked.count == new.entryCount - 400 + 1, "all past the first 400, and p-0100.json")
    }

    /// A site with `keep:` and a folder of 520 pages (`all/`), big enough to be recycled.
    private static func bigFolderSite(locales: String, keep: Int = 2) throws -> SiteFixture {
        let fixture = try SiteFixture()
        try fixture.write("default_locale: en\nlocales: \(locales)\nkeep: \(keep)\n", to: "site.yaml")
        for number in 0..<520 {
            try fixture.write(
                "title: Item \(number)\nsections:\n  - type: divider\n    id: d\n", to: String(format: "all/p-%03d.yaml", number))
        }
        return fixture
    }

    /// A `SiteBuilder` with spare folders, as `quire watch` runs it: a whole build, then `count`
    /// edits of all/p-100, each after the spares of the one before were made.
    private static func watchedEdits(
        _ fixture: SiteFixture, count: Int, afterFirstBuild: (SiteBuilder) throws -> Void = { _ in }
    ) throws -> (SiteBuilder, [SiteBuildResult]) {
        var options = BuildOptions()
        options.spareFolders = true
        let builder = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist, options: options)
        #expect(builder.build().outcome != nil)
        builder.flushSpareFolders()
        try afterFirstBuild(builder)
        let folder = URL(fileURLWithPath: fixture.siteFolder).standardizedFileURL.path
        var results: [SiteBuildResult] = []
        for edit in 1...count {
            builder.flushSpareFolders()
            try fixture.write("title: Edited \(edit)\nsections:\n  - type: divider\n    id: d\n", to: "all/p-100.yaml")
            results.append(builder.build(changed: ["\(folder)/all/p-100.yaml"]))
        }
        builder.flushSpareFolders()
        return (builder, results)
    }

    /// The names in the spare folders' staging lease of the fixture's store.
    private static func spareLease(_ fixture: SiteFixture) throws -> [String] {
        let staging = fixture.dist + "/" + fixture.site + "/staging"
        let lease = try #require(try FileSystem.list(staging).first { $0.hasPrefix(SpareFolders.prefix) && !$0.hasSuffix(".lock") })
        return try FileSystem.list(staging + "/" + lease)
    }

    /// Through `SiteBuilder`, as `quire watch` runs it: `keep: 2` in site.yaml and a folder of
    /// 520 pages, every edit equal to a full build.
    @Test func aWatchedSiteWithRetentionRecyclesItsBigFolder() throws {
        let fixture = try Self.bigFolderSite(locales: "[en, fr]")
        let (builder, edits) = try Self.watchedEdits(fixture, count: 5)
        for result in edits { #expect(result.builtAsDelta && result.operationalError == nil) }
        // The first edit's spares of all/ in each locale (fr falls back to en) are made from the
        // first round's reserves; from the second edit on, retention removes a tree of all/ in
        // each locale and the next spare of that folder is made from it.
        #expect(builder.store?.spareFolders.recycled == 10)
        let store = try SiteStore(dist: fixture.dist, site: fixture.site)
        #expect(try store.reader.versionCount() == 2)
        #expect(try store.operations.verify().isEmpty)
        #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.fresh(fixture))
        let staging = fixture.dist + "/" + fixture.site + "/staging"
        #expect(try !Self.spareLease(fixture).contains(where: RecycledFolders.holds), "each removed tree of all/ became a spare")
        // The rest retention removed (the old versions, the small folders) is unlinked after its
        // lock, in the spare folders' background, and nothing of it stays.
        let deadline = Date().addingTimeInterval(10)
        while builder.store?.spareFolders.removedLater ?? 0 < 4, Date() < deadline { usleep(10_000) }
        #expect(builder.store?.spareFolders.removedLater ?? 0 >= 4, "one a retention, from the second edit on")
        #expect(try FileSystem.list(staging).allSatisfy { $0.hasPrefix(SpareFolders.prefix) }, "no gc folder left")
        builder.closeSpareFolders()
    }

    /// Through `SiteBuilder`, as `quire watch` runs it on a new store: until retention removes a
    /// version, the spares of the big folders saves change are made from reserves, the first
    /// save's too (the first round reserves the folders of pages, not of previews).
    @Test func aNewStoresFirstSavesMakeTheirSparesFromReserves() throws {
        let fixture = try Self.bigFolderSite(locales: "[en, fr]", keep: 4)
        let (builder, edits) = try Self.watchedEdits(fixture, count: 3) { builder in
            let pool = try #require(builder.store?.spareFolders.current?.recycled)
            #expect(pool.holdsCopy(for: "en/all") && pool.holdsCopy(for: "fr/all"), "reserves before the first save")
            #expect(!pool.holdsCopy(for: "preview/en/all"), "no save changes the preview shells")
        }
        for result in edits { #expect(result.builtAsDelta) }
        // Each edit changes all/ in each locale: the spares after each made from reserves; the
        // third's publish makes four versions, so no reserve after it.
        #expect(builder.store?.spareFolders.recycled == 6)
        let store = try SiteStore(dist: fixture.dist, site: fixture.site)
        #expect(try store.reader.versionCount() == 4)
        #expect(try store.operations.verify().isEmpty)
        #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.fresh(fixture))
        #expect(try !Self.spareLease(fixture).contains(where: RecycledFolders.holds), "no reserve of preview/en/all")
        builder.closeSpareFolders()
    }

    /// A watcher restarted on a store with history: its first publish (a delta, from the restart
    /// file) has retention remove the oldest version, whose tree of the big folder becomes the
    /// spare of the new one, ready before "watching" without linking its entries anew; and so on
    /// with each save.
    @Test func aRestartedWatchersFirstRetentionRecyclesTheBigFolder() throws {
        let fixture = try Self.bigFolderSite(locales: "[en]")
        var options = BuildOptions()
        options.spareFolders = true
        options.restartCache = true
        let folder = URL(fileURLWithPath: fixture.siteFolder).standardizedFileURL.path
        let first = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist, options: options)
        #expect(first.build().outcome != nil)
        for edit in 1...2 {
            first.flushSpareFolders()
            try fixture.write("title: Edited \(edit)\nsections:\n  - type: divider\n    id: d\n", to: "all/p-100.yaml")
            #expect(first.build(changed: ["\(folder)/all/p-100.yaml"]).builtAsDelta)
        }
        first.flushBackgroundWork()
        first.saveRestartCache()
        first.closeSpareFolders(handingOver: true)
        try #require(try first.openStore().reader.versionCount() == 2)

        try fixture.write("title: Edited while stopped\nsections:\n  - type: divider\n    id: d\n", to: "all/p-200.yaml")
        let restarted = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist, options: options)
        let result = restarted.build()
        #expect(result.builtAsDelta && result.outcome == .published(VersionID(4), isCurrent: true))
        restarted.flushBackgroundWork()
        #expect(restarted.store?.spareFolders.recycled == 1, "all/'s spare made from the tree retention removed")
        // The next save's retention removes the version the restart started on: its tree too.
        try fixture.write("title: Edited again\nsections:\n  - type: divider\n    id: d\n", to: "all/p-300.yaml")
        #expect(restarted.build(changed: ["\(folder)/all/p-300.yaml"]).builtAsDelta)
        restarted.flushSpareFolders()
        #expect(restarted.store?.spareFolders.recycled == 2, "and the version the restart started on")
        #expect(try restarted.openStore().operations.verify().isEmpty)
        #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.fresh(fixture))
        restarted.closeSpareFolders()
    }
}
