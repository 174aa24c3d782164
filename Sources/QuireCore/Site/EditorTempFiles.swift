/// Names of files that editors, sync tools and browsers write while saving: never pages.
///
/// Decided on the name alone, before any `stat`: emacs lock files (`.#name`) are dangling
/// symbolic links, and a symlink check on them would report every emacs save as an attack.
public enum EditorTempFiles {
    /// True when a file or folder with this name (the last path component) is to be ignored,
    /// together with everything under it.
    public static func isIgnored(_ name: String) -> Bool {
        // By UTF-8 bytes: every file of a scan (30,000 at 10,000 pages) and every inotify event
        // comes through here, and Foundation's `contains` and `lowercased` cost microseconds a
        // name. Every pattern is ASCII, so a byte match is a character match.
        let bytes = Array(name.utf8)
        guard let first = bytes.first, let last = bytes.last else { return true }
        if first == UInt8(ascii: ".") {
            // Hidden files and folders: `.git`, emacs `.#name`, vim `.name.swp`,
            // rsync `.name.XXXXXX`, gedit `.goutputstream-XXXXXX`.
            return true
        }
        if last == UInt8(ascii: "~") || bytes.starts(with: "~$".utf8) {
            // Backups (vim, emacs, gedit) and office lock files.
            return true
        }
        if first == UInt8(ascii: "#") && last == UInt8(ascii: "#") {
            // Emacs auto-save.
            return true
        }
        if contains(bytes, "___jb_tmp___") || contains(bytes, "___jb_old___") {
            // JetBrains safe write.
            return true
        }
        if isVimWriteProbe(name) || isSedTemporary(name) {
            return true
        }
        return ignoredSuffixes.contains { hasSuffixIgnoringASCIICase(bytes, $0) }
    }

    /// True when any component of `relativePath` (separated by `/`) is ignored.
    public static func isIgnored(relativePath: String) -> Bool {
        relativePath.split(separator: "/").contains { isIgnored(String($0)) }
    }

    private static let ignoredSuffixes: [StaticString] = [
        ".swp", ".swo", ".swn", ".swx",  // vim swap files without a leading dot
        ".tmp", ".temp",  // VS Code and many others
        ".part", ".crdownload",  // partial downloads
        ".kate-swp",
        ".bak", ".orig", ".rej",  // backups and patch leftovers
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

    private static func contains(_ bytes: [UInt8], _ pattern: StaticString) -> Bool {
        let pattern = UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
        guard bytes.count >= pattern.count else { return false }
        return (0...(bytes.count - pattern.count)).contains { bytes[$0..<$0 + pattern.count].elementsEqual(pattern) }
    }

    /// `suffix` is lower-case ASCII.
    private static func hasSuffixIgnoringASCIICase(_ bytes: [UInt8], _ suffix: StaticString) -> Bool {
        let suffix = UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount)
        guard bytes.count >= suffix.count else { return false }
        return zip(bytes[(bytes.count - suffix.count)...], suffix).allSatisfy { byte, wanted in
            ((65...90).contains(byte) ? byte | 0x20 : byte) == wanted
        }
    }
}
