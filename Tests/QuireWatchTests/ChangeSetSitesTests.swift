import QuireWatch
import Testing

/// Which sites a change set makes the watcher build, and how much of each it reads again.
@Suite struct ChangeSetSitesTests {
    static let root = "/srv/pages"

    func sites(_ paths: [String], rescan: Bool = false) -> [String: Set<String>?] {
        ChangeSet(paths: Set(paths.map { "\(Self.root)/\($0)" }), needsFullRescan: rescan)
            .bySite(pagesRoot: Self.root, allSites: ["trex", "springfield-pd"], isSite: { !$0.hasPrefix(".") })
    }

    @Test func filesOfASiteAreReadAgainOneByOne() {
        let result = sites(["trex/home.yaml", "trex/guides/safety.yaml", "springfield-pd/home.yaml"])
        #expect(result["trex"] == .some(["\(Self.root)/trex/home.yaml", "\(Self.root)/trex/guides/safety.yaml"]))
        #expect(result["springfield-pd"] == .some(["\(Self.root)/springfield-pd/home.yaml"]))
    }

    /// rsync sets the site folder's attributes at its end: an event on the site folder itself
    /// means reading everything, whatever order the paths come in (a set has none). Once, this
    /// dropped the site's other changed files.
    @Test func anEventOnTheSiteFolderReadsEverything() {
        for index in 0..<50 {
            // Other paths each time, so the site folder lands at different places in the order.
            let result = sites(["trex", "trex/guides", "trex/guides/safety.yaml", "trex/p\(index).yaml", "springfield-pd/home.yaml"])
            #expect(result.keys.sorted() == ["springfield-pd", "trex"])
            #expect(result["trex"] == .some(nil))
            #expect(result["springfield-pd"] == .some(["\(Self.root)/springfield-pd/home.yaml"]))
        }
    }

    @Test func aRescanReadsEverySiteAndHiddenFoldersAreNoSites() {
        let result = sites([".git/index.lock", "trex/home.yaml"], rescan: true)
        #expect(result.keys.sorted() == ["springfield-pd", "trex"])
        #expect(result.values.allSatisfy { $0 == nil })
    }
}
