import Foundation
import QuireCore

/// What `lstat` says about one entry, enough to notice a change without reading it.
struct FileStamp: Sendable, Equatable {
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int
    var changedSeconds: Int
    var changedNanoseconds: Int
    var mode: UInt32

    var isDirectory: Bool { (mode & S_IFMT) == S_IFDIR }

    init(_ status: stat) {
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        modifiedSeconds = Int(status.st_mtim.tv_sec)
        modifiedNanoseconds = Int(status.st_mtim.tv_nsec)
        changedSeconds = Int(status.st_ctim.tv_sec)
        changedNanoseconds = Int(status.st_ctim.tv_nsec)
        mode = UInt32(status.st_mode)
    }
}

/// Walks a tree with `readdir` and `lstat`, never following symbolic links and skipping
/// editor temp names (by name, before `lstat`) together with everything under them.
enum DirectoryWalker {
    struct Listing {
        /// Folders, the start folder first, parents before children.
        var directories: [String] = []
        /// Everything else (files, symlinks, FIFOs, ...), by absolute path.
        var entries: [String: FileStamp] = [:]
    }

    /// Lists `folder` and everything under it. `visit` runs on each folder before it is read,
    /// so a watch added there sees every entry created after the listing.
    static func walk(_ folder: String, visit: (String) -> Void = { _ in }) -> Listing {
        var listing = Listing()
        traverse(
            folder,
            visit: { current in
                visit(current)
                listing.directories.append(current)
            },
            considers: { _ in true },
            isFolder: { path, _ in
                var status = stat()
                guard lstat(path, &status) == 0 else { return false }  // deleted meanwhile
                let stamp = FileStamp(status)
                if !stamp.isDirectory { listing.entries[path] = stamp }
                return stamp.isDirectory
            })
        return listing
    }

    /// Runs `visit` on `folder` and every folder under it, each before it is read, as `walk`
    /// does, without looking at the other entries: the type `readdir` gives is enough (`lstat`
    /// only where the file system gives none), so a folder of 30,000 files costs no `lstat`.
    static func visitFolders(_ folder: String, visit: (String) -> Void) {
        traverse(
            folder, visit: visit, considers: { $0 == UInt8(DT_DIR) || $0 == UInt8(DT_UNKNOWN) },
            isFolder: { path, type in
                guard type == UInt8(DT_UNKNOWN) else { return true }
                var status = stat()
                return lstat(path, &status) == 0 && FileStamp(status).isDirectory
            })
    }

    /// Both walks: folders depth first, each visited before it is read. `considers` picks
    /// entries by `readdir`'s type before their name is decoded; `isFolder` says of each one
    /// picked (not `.`, `..` or an editor temp name) whether to walk into it.
    private static func traverse(
        _ folder: String, visit: (String) -> Void, considers: (UInt8) -> Bool, isFolder: (_ path: String, _ type: UInt8) -> Bool
    ) {
        var stack = [folder]
        while let current = stack.popLast() {
            visit(current)
            guard let stream = opendir(current) else { continue }  // gone meanwhile, or unreadable
            defer { closedir(stream) }
            let prefix = current.hasSuffix("/") ? current : current + "/"
            var children: [String] = []
            while let entry = readdir(stream) {
                let type = entry.pointee.d_type
                guard considers(type) else { continue }
                let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                    pointer.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
                }
                if name == "." || name == ".." || EditorTempFiles.isIgnored(name) { continue }
                let path = prefix + name
                if isFolder(path, type) { children.append(path) }
            }
            stack.append(contentsOf: children.reversed())
        }
    }
}
