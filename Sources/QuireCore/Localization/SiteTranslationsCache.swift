import Synchronization

/// What `SiteTranslations.load` read of each page source and translation file, kept from one
/// load to the next by a long-lived caller: the dashboard, whose every translators' request
/// loads the site (at 10,000 pages, 30,000 files to read and parse, a PO file each through a
/// parser child). A file whose stamp is still the one taken when it was read (`FileStamp`) is
/// taken as read, as a restarted watcher takes it (`RestartChanges`). A change of the site's
/// settings drops everything: validation and the translation files' rules depend on them.
public final class SiteTranslationsCache: Sendable {
    private let kept = Mutex(Entries())

    public init() {}

    struct Kept<Value: Sendable>: Sendable {
        var stamp: FileStamp
        var value: Value
    }

    /// A page's translations checked against its strings, from the files at `inputs` (its
    /// source, then its translation files): still true while all of them are kept.
    struct KeptCheck: Sendable {
        var inputs: [String]
        var translations: PageTranslations
        var diagnostics: [Diagnostic]
    }

    /// One load's view: what it found kept, then what it keeps for the next.
    struct Entries: Sendable {
        var settingsDigest = ""
        var pages: [String: Kept<LoadedPage>] = [:]
        var files: [String: Kept<LoadedFile>] = [:]
        /// By page id.
        var checks: [String: KeptCheck] = [:]

        /// The page source at `path` as last loaded, when it has not changed since.
        func page(at path: String) -> LoadedPage? { Self.unchanged(pages[path], path: path) }

        /// The translation file at `path` as last loaded, when it has not changed since.
        func file(at path: String) -> LoadedFile? { Self.unchanged(files[path], path: path) }

        private static func unchanged<Value>(_ kept: Kept<Value>?, path: String) -> Value? {
            guard let kept, FileStamp.current(of: path) == kept.stamp else { return nil }
            return kept.value
        }
    }

    /// What was kept for a site whose settings have `settingsDigest` (nothing, after they changed).
    func entries(settingsDigest: String) -> Entries {
        kept.withLock { $0.settingsDigest == settingsDigest ? $0 : Entries(settingsDigest: settingsDigest) }
    }

    /// Keeps one load's files. A load of the whole site (`replacing`) keeps only those: a file
    /// gone from the site is dropped with it. A load of some pages adds to what is kept, under
    /// the same settings.
    func keep(_ entries: Entries, replacing: Bool) {
        kept.withLock { kept in
            guard !replacing, kept.settingsDigest == entries.settingsDigest else {
                kept = entries
                return
            }
            kept.pages.merge(entries.pages) { $1 }
            kept.files.merge(entries.files) { $1 }
            kept.checks.merge(entries.checks) { $1 }
        }
    }
}
