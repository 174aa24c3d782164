import Foundation
import QuireTestSupport
import Testing

@testable import QuireCore

/// Real files, links, FIFOs and devices in a fresh temporary folder.
final class SourceFileReaderTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-source-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    private func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: folder.appendingPathComponent(name))
    }

    private func readError(_ path: String, maxBytes: Int = SourceLimits.default.maxFileBytes) -> SourceReadError? {
        do {
            _ = try SourceFileReader(maxBytes: maxBytes).read(path)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsARegularFile() throws {
        try write("store.yaml", "title: Store\n")
        #expect(try SourceFileReader().read(path("store.yaml")) == Array("title: Store\n".utf8))
        try write("empty.yaml", "")
        #expect(try SourceFileReader().read(path("empty.yaml")) == [])
    }

    @Test func readsAFileLargerThanOneChunk() throws {
        let text = String(repeating: "0123456789abcdef", count: 70_000)  // 1.1 MB
        try write("big.json", text)
        #expect(try SourceFileReader().read(path("big.json")).count == text.utf8.count)
    }

    @Test func refusesASymbolicLink() throws {
        try write("real.yaml", "title: Store\n")
        try FileManager.default.createSymbolicLink(atPath: path("link.yaml"), withDestinationPath: path("real.yaml"))
        #expect(readError(path("link.yaml")) == .symbolicLink)
        // A dangling link (an emacs lock file) is refused the same way, not reported as gone.
        try FileManager.default.createSymbolicLink(atPath: path(".#store.yaml"), withDestinationPath: "user@host.1234")
        #expect(readError(path(".#store.yaml")) == .symbolicLink)
        #expect(SourceReadError.symbolicLink.message == "is a symbolic link: quire reads only regular files inside pages/")
    }

    @Test func refusesAFIFOWithoutBlocking() throws {
        #expect(mkfifo(path("pipe.yaml"), 0o644) == 0)
        #expect(readError(path("pipe.yaml")) == .notRegularFile(kind: "a FIFO"))
        #expect(
            SourceReadError.notRegularFile(kind: "a FIFO").message
                == "is a FIFO, not a regular file: quire reads only regular files inside pages/")
    }

    @Test func refusesADeviceAndADirectory() throws {
        #expect(readError("/dev/null") == .notRegularFile(kind: "a device"))
        try FileManager.default.createDirectory(atPath: path("folder.yaml"), withIntermediateDirectories: false)
        #expect(readError(path("folder.yaml")) == .notRegularFile(kind: "a directory"))
    }

    @Test func refusesAFileOverTheLimit() throws {
        try write("big.yaml", String(repeating: "x", count: 101))
        #expect(readError(path("big.yaml"), maxBytes: 100) == .tooLarge(size: 101, limit: 100))
        #expect(try SourceFileReader(maxBytes: 101).read(path("big.yaml")).count == 101)
        #expect(
            SourceReadError.tooLarge(size: 104_857_600, limit: 4_194_304).message
                == "is 104857600 bytes, over the 4194304-byte limit (limits.max_file_bytes in site.yaml)")
    }

    @Test func aFileDeletedBeforeTheReadHasVanished() throws {
        try write("gone.yaml", "title: Store\n")
        try FileManager.default.removeItem(atPath: path("gone.yaml"))
        #expect(readError(path("gone.yaml")) == .vanished)
        #expect(SourceReadError.vanished.message == "is gone: it was deleted or renamed before it could be read")
    }

    @Test func otherFailuresCarryTheSystemReason() throws {
        try write("secret.yaml", "title: Store\n")
        #expect(chmod(path("secret.yaml"), 0) == 0)
        #expect(chmod(folder.path, 0o755) == 0, "the unprivileged reader must reach the file to be refused by it")
        // Root reads anything, so the read runs with an unprivileged user's file access.
        let secret = path("secret.yaml")
        let unprivileged = Unprivileged.run { () -> SourceReadError? in
            do throws(SourceReadError) {
                _ = try SourceFileReader().read(secret)
                return nil
            } catch {
                return error
            }
        }
        #expect(unprivileged.fileUser != 0, "the read ran as root")
        #expect(unprivileged.result == .unreadable(errno: EACCES, reason: "open: Permission denied"))
        #expect(
            SourceReadError.unreadable(errno: EACCES, reason: "open: Permission denied").message
                == "cannot be read: open: Permission denied (errno 13)")
    }
}
