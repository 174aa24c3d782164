import Foundation

/// While git rewrites the working tree (checkout, merge, rebase, stash) it holds
/// `.git/index.lock`; publishing half a checkout would publish a mix of two commits. The
/// settler holds change sets while the lock of any repository containing the root exists.
struct GitIndexLock: Sendable {
    /// `index.lock` paths of the repositories that contain the root, nearest first.
    let lockPaths: [String]

    init(root: String) {
        var paths: [String] = []
        var folder = root
        while true {
            if let gitDirectory = Self.gitDirectory(of: folder) {
                paths.append(gitDirectory + "/index.lock")
            }
            let parent = (folder as NSString).deletingLastPathComponent
            if parent == folder || parent.isEmpty { break }
            folder = parent
        }
        lockPaths = paths
    }

    init(lockPaths: [String]) {
        self.lockPaths = lockPaths
    }

    var isHeld: Bool { heldBy != nil }

    /// The lock file that exists, if any.
    var heldBy: String? {
        lockPaths.first { path in
            var status = stat()
            return lstat(path, &status) == 0
        }
    }

    /// `folder/.git` when it is a folder; the `gitdir:` it names when it is a file (worktrees,
    /// submodules).
    private static func gitDirectory(of folder: String) -> String? {
        let dotGit = folder == "/" ? "/.git" : folder + "/.git"
        var status = stat()
        guard lstat(dotGit, &status) == 0 else { return nil }
        if (status.st_mode & S_IFMT) == S_IFDIR { return dotGit }
        guard (status.st_mode & S_IFMT) == S_IFREG,
            let text = try? String(contentsOfFile: dotGit, encoding: .utf8),
            let line = text.split(separator: "\n").first, line.hasPrefix("gitdir:")
        else { return nil }
        let named = line.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespaces)
        return named.hasPrefix("/") ? named : folder + "/" + named
    }
}
