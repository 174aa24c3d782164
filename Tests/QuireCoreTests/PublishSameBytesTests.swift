import Foundation
import Glibc
import QuireModel
import Testing

@testable import QuireCore

/// Files of one new tree with equal bytes (the preview shells of a folder) are written once and
/// hard-linked under their other names, at most `namesPerFile` names an inode.
@Suite struct PublishSameBytesTests {
    @Test func equalFilesOfOneFolderShareAFewInodesAndVerify() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        let shell = "<!doctype html><script src=../preview.js></script>"
        let previews = (0..<150).map { page(String(format: "preview/en/p-%03d.html", $0), shell) }
        let pages = (0..<150).map { page(String(format: "en/p-%03d.json", $0), #"{"n":\#($0)}"#) }
        _ = try store.publish(request(baseFiles + previews + pages))
        #expect(try store.operations.verify().isEmpty)

        let folder = dist.path + "/trex/current/preview/en"
        var names: [UInt64: Int] = [:]
        for index in 0..<150 {
            let path = folder + String(format: "/p-%03d.html", index)
            #expect(readText(path) == shell)
            let info = try #require(lstatInfo(path))
            names[UInt64(info.st_ino), default: 0] += 1
        }
        // 150 names: 64 + 64 + 22, three files written.
        #expect(names.values.sorted() == [22, 64, 64])
        // Pages of other bytes each keep a file of their own.
        let inodes = Set((0..<150).compactMap { lstatInfo(dist.path + String(format: "/trex/current/en/p-%03d.json", $0))?.st_ino })
        #expect(inodes.count == 150)
    }

    @Test func anEditOfOneSharedNameLeavesTheOthersAsTheyWere() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        let previews = (0..<10).map { page("preview/en/p-\($0).html", "shell") }
        _ = try store.publish(request(baseFiles + previews))
        let base = try #require(try store.reader.newestVersion())
        let delta = PublishDelta(
            base: base, files: [page("preview/en/p-3.html", "draft shell")], removed: [],
            manifest: JSONObject([("locales", ["en", "fr"])]),
            buildRecord: JSONObject())
        #expect(try store.publish(delta) == .published(VersionID(base.number + 1), isCurrent: true))
        #expect(try store.operations.verify().isEmpty)
        let folder = dist.path + "/trex/current/preview/en/"
        #expect(readText(folder + "p-3.html") == "draft shell")
        #expect((0..<10).filter { $0 != 3 }.allSatisfy { readText(folder + "p-\($0).html") == "shell" })
        // The first version still holds the shell under every name.
        #expect(readText(dist.path + "/trex/versions/\(base)/preview/en/p-3.html") == "shell")
    }
}
