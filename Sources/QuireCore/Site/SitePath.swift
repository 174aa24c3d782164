/// What a file's path inside a site folder (`pages/<site>/`) names, read from the path alone:
/// the one place that knows the folder's layout. The scan (`SiteInventory`) and the delta scope
/// of a change set (`SiteBuilder.deltaScope`) both ask it; whether the file is there, and what
/// its bytes say, is theirs to find out.
enum SitePath: Equatable {
    /// `site.yaml` (`SiteInventory.siteFileNames`).
    case siteFile
    /// `vocabulary.yaml` and its other spellings (`SiteInventory.vocabularyFileNames`).
    case vocabularyFile
    /// `assets/<name>`, whatever its media type.
    case asset(name: String)
    /// Anything under `l10n/`: a `TranslationPath` when it is named as one, nil otherwise.
    case translation(TranslationPath?)
    /// Any other file: a page source when its extension is one (`isPageSource`), whose page id
    /// is its path without the extension.
    case page(id: String, pathExtension: String)

    /// `l10n/<locale>/<page_id>.<extension>`, any extension.
    struct TranslationPath: Equatable {
        var locale: String
        var pageID: String
        var pathExtension: String

        /// Whether the extension is one of a translation format: a file named otherwise is not read.
        var isTranslationFormat: Bool { SiteInventory.translationExtensions.contains(pathExtension) }
    }

    /// `relativePath` is relative to the site folder (`l10n/fr/home.yaml`).
    init(_ relativePath: String) {
        if SiteInventory.siteFileNames.contains(relativePath) {
            self = .siteFile
        } else if SiteInventory.vocabularyFileNames.contains(relativePath) {
            self = .vocabularyFile
        } else if relativePath.hasPrefix("assets/") {
            self = .asset(name: String(relativePath.dropFirst("assets/".count)))
        } else {
            let (stem, pathExtension) = SiteInventory.splitExtension(relativePath)
            if relativePath.hasPrefix("l10n/") {
                let parts = SiteInventory.segments(of: stem, maxSplits: 2)
                self = .translation(
                    parts.count == 3 ? TranslationPath(locale: parts[1], pageID: parts[2], pathExtension: pathExtension) : nil)
            } else {
                self = .page(id: stem, pathExtension: pathExtension)
            }
        }
    }

    /// `path` (absolute, as the watcher names a change) relative to the site folder `root`; nil
    /// when it lies outside.
    static func relative(_ path: String, in root: String) -> String? {
        guard path.hasPrefix(root + "/") else { return nil }
        return String(path.dropFirst(root.count + 1))
    }

    /// Whether `relativePath` is, or lies under, an editor's temporary file (`EditorTempFiles`):
    /// not the site's, so neither the scan nor a change set looks at it.
    static func isEditorTemporary(_ relativePath: String) -> Bool {
        relativePath.split(separator: "/").contains { EditorTempFiles.isIgnored(String($0)) }
    }

    /// Whether a `.page` path's extension is one of a page source (`.json`, `.yaml`, `.yml`).
    static func isPageSource(extension pathExtension: String) -> Bool { SiteInventory.pageExtensions.contains(pathExtension) }
}
