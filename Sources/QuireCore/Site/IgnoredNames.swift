/// Names of files that editors, sync tools and version control leave beside real sources:
/// never pages, never a reason to build. Checked on the name alone, before any `lstat`,
/// because emacs lock files (`.#name`) are dangling symbolic links.
public enum IgnoredNames {
    public static func isIgnored(_ name: String) -> Bool {
        if name.isEmpty || name.hasPrefix(".") { return true }          // hidden, rsync .name.XXXXXX, emacs .#lock
        if name.hasSuffix("~") || name == "4913" { return true }        // vim/emacs backups, vim's write probe
        if name.hasPrefix("#") && name.hasSuffix("#") { return true }   // emacs autosave
        if name.contains("___jb_tmp___") || name.contains("___jb_old___") { return true }  // JetBrains safe write
        for suffix in [".swp", ".swx", ".swo", ".tmp", ".temp", ".part", ".crdownload", ".bak", ".orig", ".rej", ".kate-swp"]
        where name.hasSuffix(suffix) { return true }
        if name.hasPrefix("~$") || name == "Thumbs.db" { return true }
        return false
    }
}
