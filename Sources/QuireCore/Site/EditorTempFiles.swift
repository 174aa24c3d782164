/// Names of files that editors, sync tools and browsers write while saving: never pages.
///
/// Decided on the name alone, before any `stat`: emacs lock files (`.#name`) are dangling
/// symbolic links, and a symlink check on them would report every emacs save as an attack.
public enum EditorTempFiles {
    /// True when a file or folder with this name (the last path component) is to be ignored,
    /// together with everything under it.
    public static func isIgnored(_ name: String) -> Bool {
        if name.isEmpty || name.hasPrefix(".") {
            // Hidden files and folders: `.git`, emacs `.#name`, vim `.name.swp`,
            // rsync `.name.XXXXXX`, gedit `.goutputstream-XXXXXX`.
            return true
        }
        if name.hasSuffix("~") || name.hasPrefix("~$") {
            // Backups (vim, emacs, gedit) and office lock files.
            return true
        }
        if name.hasPrefix("#") && name.hasSuffix("#") {
            // Emacs auto-save.
            return true
        }
        if name.contains("___jb_tmp___") || name.contains("___jb_old___") {
            // JetBrains safe write.
            return true
        }
        if isVimWriteProbe(name) || isSedTemporary(name) {
            return true
        }
        let lowercased = name.lowercased()
        return ignoredSuffixes.contains { lowercased.hasSuffix($0) }
    }

    /// True when any component of `relativePath` (separated by `/`) is ignored.
    public static func isIgnored(relativePath: String) -> Bool {
        relativePath.split(separator: "/").contains { isIgnored(String($0)) }
    }

    private static let ignoredSuffixes = [
        ".swp", ".swo", ".swn", ".swx",  // vim swap files without a leading dot
        ".tmp", ".temp",                 // VS Code and many others
        ".part", ".crdownload",          // partial downloads
        ".kate-swp",
        ".bak", ".orig", ".rej",         // backups and patch leftovers
    ]

    /// `sed -i` writes `sedXXXXXX` (six random letters and digits) beside the file, then renames it.
    private static func isSedTemporary(_ name: String) -> Bool {
        name.utf8.count == 9 && name.hasPrefix("sed")
            && name.utf8.dropFirst(3).allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }
    }

    /// Vim checks that it may create files in a folder by writing `4913` (then 5036, 5159, ...
    /// in steps of 123 while the name is taken) and deleting it at once.
    private static func isVimWriteProbe(_ name: String) -> Bool {
        guard name.utf8.count <= 9, name.utf8.allSatisfy({ (48...57).contains($0) }), let number = Int(name) else {
            return false
        }
        return number >= 4913 && (number - 4913) % 123 == 0
    }
}
