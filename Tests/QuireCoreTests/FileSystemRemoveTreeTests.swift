import Foundation
import Glibc
import Testing

@testable import QuireCore

/// `FileSystem.removeTree`: what a version or a tree folder holds (files, hard links, folders,
/// symbolic links to shared trees) goes, and nothing reached through a link does.
@Suite struct FileSystemRemoveTreeTests {
    @Test func removesFilesFoldersAndLinksWithoutFollowingThem() throws {
        let dist = TemporaryDist()
        let shared = dist.path + "/shared"
        let doomed = dist.path + "/doomed"
        try FileSystem.makeDirectories(shared + "/inner")
        try FileSystem.createFile(shared + "/kept.json", Array("kept".utf8))
        try FileSystem.createFile(shared + "/inner/deep.json", Array("deep".utf8))
        try FileSystem.makeDirectories(doomed + "/a/b/c")
        for index in 0..<150 { try FileSystem.createFile(doomed + "/a/page-\(index).json", Array("\(index)".utf8)) }
        try FileSystem.createFile(doomed + "/a/b/c/leaf.html", Array("leaf".utf8))
        #expect(link(shared + "/kept.json", doomed + "/a/b/hard-link.json") == 0)
        #expect(symlink("../shared", doomed + "/folder-link") == 0)
        #expect(symlink("../shared/kept.json", doomed + "/a/file-link") == 0)
        #expect(symlink("nowhere", doomed + "/dangling") == 0)

        try FileSystem.removeTree(doomed)

        #expect(!FileSystem.exists(doomed))
        #expect(readText(shared + "/kept.json") == "kept")
        #expect(readText(shared + "/inner/deep.json") == "deep")
        #expect(lstatInfo(shared + "/kept.json")?.st_nlink == 1)
    }

    @Test func aFileOrNothingAtThePath() throws {
        let dist = TemporaryDist()
        try FileSystem.createFile(dist.path + "/file", Array("x".utf8))
        try FileSystem.removeTree(dist.path + "/file")
        #expect(!FileSystem.exists(dist.path + "/file"))
        try FileSystem.removeTree(dist.path + "/never-was")
    }

    @Test func aFailedRemovalNamesTheEntryAndLeavesTheFolder() throws {
        let dist = TemporaryDist()
        let doomed = dist.path + "/doomed"
        try FileSystem.makeDirectories(doomed)
        for name in ["a.json", "b.json", "c.json"] { try FileSystem.createFile(doomed + "/" + name, Array(name.utf8)) }
        let faults = FaultPlan()
        faults.fail(.init(operation: "remove", pathPrefix: doomed + "/b.json", errorNumber: EIO))
        #expect(throws: StoreError.self) { try faults.inEffect { () throws(StoreError) in try FileSystem.removeTree(doomed) } }
        do {
            try faults.inEffect { () throws(StoreError) in try FileSystem.removeTree(doomed) }
        } catch {
            #expect("\(error)".contains(doomed + "/b.json"))
        }
        #expect(FileSystem.exists(doomed + "/b.json"))
        // Only where the plan is in effect.
        try FileSystem.removeTree(doomed)
        #expect(!FileSystem.exists(doomed))
    }
}
