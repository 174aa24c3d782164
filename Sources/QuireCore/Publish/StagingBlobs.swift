import Glibc
import Synchronization

/// A rendered file already written into the store's staging area, waiting for its tree: the
/// publish moves it into place instead of holding its bytes in memory until then.
/// A class: the output file and the planned tree hold the same one, and a first build of 100,000
/// pages holds 300,000 until it publishes. Its path is made when the blob is moved, from strings
/// the build holds anyway: the build's staging folder and the output file's path.
public final class StagedBlob: Sendable {
    let staging: String
    let outputPath: String
    public let sha256: Digest
    public let size: Int

    init(staging: String, outputPath: String, sha256: Digest, size: Int) {
        (self.staging, self.outputPath, self.sha256, self.size) = (staging, outputPath, sha256, size)
    }

    /// `dist/<site>/staging/blobs-<pid>-<random>/<output folder>/<name>` (see `stage`).
    public var path: String { StagingBlobs.location(of: outputPath, in: staging).path }
}

/// Where one build writes its rendered files as they are produced (`staging/blobs-<pid>-<random>/`),
/// so a 10,000-page build never holds every output in memory (issue 8).
///
/// Blobs are written before the publish lock is taken, so the folder is a `StagingLease`: other
/// processes' leftover cleanup keeps it while this process lives.
/// Files are not synced one by one: the publish syncs the file system once before the swap, and
/// `WriteBehind` gets the disk writing them meanwhile.
/// Each blob has its own name and is moved into exactly one tree; a write that fails (disk full)
/// keeps that file in memory instead, and the publish then reports the failure itself.
public final class StagingBlobs: Sendable {
    private let lease: StagingLease
    var folder: String { lease.folder }
    let writeBehind: WriteBehind
    private let isFailed = Atomic<Bool>(false)
    private let isClosed = Atomic<Bool>(false)

    static let prefix = "blobs-"

    init(staging: String) throws(StoreError) {
        lease = try StagingLease(staging: staging, prefix: Self.prefix)
        writeBehind = WriteBehind(descriptor: lease.lockDescriptor)
    }

    deinit { close() }

    /// Writes `bytes` as the blob of the output file at `outputPath` (`en/guides/a.json`) and
    /// returns it as content to publish; `.bytes` when the write fails or the staging area is
    /// closed (the content is right either way).
    ///
    /// The blobs of one output folder share a staging folder, under their own names, so the
    /// publish can make that folder the tree's folder in one rename (`TreeWriter`), and no
    /// staging folder grows to the site's size.
    public func stage(_ bytes: [UInt8], at outputPath: String) -> OutputFile.Content {
        guard !isFailed.load(ordering: .relaxed), !isClosed.load(ordering: .acquiring) else { return .bytes(bytes) }
        let (blobFolder, path) = Self.location(of: outputPath, in: folder)
        do {
            do {
                try FileSystem.createFile(path, bytes)
            } catch  where error.errorNumber == ENOENT {
                // Another thread may make the folder first: both go on.
                do { try FileSystem.makeDirectory(blobFolder) } catch  where error.errorNumber == EEXIST {}
                try FileSystem.createFile(path, bytes)
            } catch  where error.errorNumber == EEXIST {
                // A file rendered again before the publish (a held delta): its new output replaces the old.
                _ = unlink(path)
                try FileSystem.createFile(path, bytes)
            }
        } catch {
            _ = unlink(path)
            isFailed.store(true, ordering: .relaxed)
            return .bytes(bytes)
        }
        writeBehind.wrote(bytes.count)
        return .staged(StagedBlob(staging: folder, outputPath: outputPath, sha256: SHA256.digest(bytes), size: bytes.count))
    }

    /// `files` with their bytes written as blobs: what a full build makes beside its pages (the
    /// page index, the cache headers; 90 MB at 100,000 pages) waits for the publish on disk.
    func stage(_ files: [OutputFile]) -> [OutputFile] {
        files.map { file in
            guard case .bytes(let bytes) = file.content else { return file }
            return OutputFile(path: file.path, content: stage(bytes, at: file.path), inputDigest: file.inputDigest, metadata: file.metadata)
        }
    }

    /// Where the blob of the output file at `outputPath` is written under `staging`, and its folder.
    static func location(of outputPath: String, in staging: String) -> (folder: String, path: String) {
        let (outputFolder, name) = split(outputPath)
        let folder = staging + "/" + folderName(outputFolder)
        return (folder, folder + "/" + name)
    }

    /// An output path's folder and name (`en/guides`, `a.json`), split at its last slash.
    static func split(_ outputPath: String) -> (folder: Substring, name: Substring) {
        guard let slash = outputPath.utf8.lastIndex(of: UInt8(ascii: "/")) else { return ("", outputPath[...]) }  // by bytes
        return (outputPath[..<slash], outputPath[outputPath.index(after: slash)...])
    }

    /// One staging folder per output folder, named so that no two output folders share one:
    /// `%` and `/` percent-encoded behind a fixed prefix (the root folder is the bare prefix).
    static func folderName(_ outputFolder: Substring) -> String {
        // Byte by byte, without `replacing(_:with:)`'s intermediate strings: it runs for two files a page.
        var name: [UInt8] = [UInt8(ascii: "f")]
        name.reserveCapacity(outputFolder.utf8.count + 8)
        for byte in outputFolder.utf8 {
            switch byte {
            case UInt8(ascii: "%"): name += "%25".utf8
            case UInt8(ascii: "/"): name += "%2F".utf8
            default: name.append(byte)
            }
        }
        return String(decoding: name, as: UTF8.self)
    }

    /// Removes every blob not moved into a tree, then the lock. Idempotent.
    public func close() {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        lease.end(beforeClosing: writeBehind.wait)
    }
}

extension SiteStore {
    /// A staging area for one build's rendered files; close it when the publish is done.
    public func openStagingBlobs() throws(StoreError) -> StagingBlobs {
        try StagingBlobs(staging: layout.staging)
    }
}
