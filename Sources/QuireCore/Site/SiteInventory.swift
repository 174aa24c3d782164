import Foundation

/// What a site folder holds, found by walking it with `lstat` only (nothing is opened here):
/// page sources by page id, translation files, assets, and the entries refused on the way.
public struct SiteInventory: Sendable {
    /// A file of the site folder. Its path is held once, the relative path being the end of it: a
    /// scan of 100,000 pages holds 300,000 of these for the whole build.
    public struct SourceFile: Sendable, Hashable {
        /// Absolute (or as given) path, for reading.
        public let path: String
        /// Where the relative path starts in `path`, in bytes.
        private let relativeStart: Int

        /// The file `relativePath` of the site folder `root`.
        public init(root: String, relativePath: String) {
            path = String(concatenating: root, "/", relativePath)
            relativeStart = root.utf8.count + 1
        }

        /// Path relative to the site folder, `guides/range-safety.json`.
        public var relativePath: String { String(Substring(path.utf8.dropFirst(relativeStart))) }

        /// Whether `relativePath` lies under the folder `prefix` (ending in `/`), compared by
        /// bytes in place: a folder's change asks it of every file of the site.
        func isUnder(_ prefix: String) -> Bool { path.utf8.dropFirst(relativeStart).starts(with: prefix.utf8) }
    }

    public struct TranslationFile: Sendable, Hashable {
        public var file: SourceFile
        public var locale: String
        public var pageID: String
    }

    public var site: String
    public var root: String
    public var siteFile: SourceFile?
    public var vocabularyFile: SourceFile?
    /// Page id -> its source files (more than one is an error: two files claim one id).
    public var pages: [String: [SourceFile]] = [:]
    /// The translation files by page id, each page's in the order the scan found them: a delta
    /// build looks up a few pages' files, and a save forgets one file among its page's.
    public private(set) var translationsByPage: [String: [TranslationFile]] = [:]
    /// Relative to `assets/`.
    public var assets: [String: SourceFile] = [:]
    public var diagnostics: [Diagnostic] = []
    /// A `site.yaml` or vocabulary file that is there but was refused (a link, a FIFO): the site
    /// must stop rather than build with defaults.
    public var refusedSettingsFile: String?
    /// Translation files that are there but were refused: their locale keeps its last good output.
    public var refusedTranslations: [TranslationFile] = []

    /// Every translation file, page after page in no set order: made on each call, for the
    /// passes that read them all.
    public func allTranslations() -> [TranslationFile] { Array(translationsByPage.values.joined()) }

    static let pageExtensions: Set<String> = ["json", "yaml", "yml"]
    static let translationExtensions: Set<String> = ["json", "yaml", "yml", "xlf", "xliff", "po"]
    static let siteFileNames = ["site.yaml", "site.yml"]
    static let vocabularyFileNames = ["vocabulary.yaml", "vocabulary.yml", "vocabulary.json"]

    /// `displayRoot` is how diagnostics name the site folder (`pages/trex`).
    public static func scan(root: String, site: String, displayRoot: String) -> SiteInventory {
        var inventory = SiteInventory(site: site, root: root)
        inventory.walk(relative: "", displayRoot: displayRoot, depth: 0)
        return inventory
    }

    /// Applies changed paths (absolute, under `root`) to an earlier scan, touching only them.
    /// A folder that appeared or went stands for the files under it. Returns the changed paths
    /// with those files added; nil when a change needs a full scan (a folder deeper than a scan
    /// reads).
    public mutating func update(changed paths: Set<String>, displayRoot: String) -> Set<String>? {
        var changed = paths
        for path in paths {
            guard let relativePath = SitePath.relative(path, in: root), !SitePath.isEditorTemporary(relativePath) else { continue }
            let display = "\(displayRoot)/\(relativePath)"
            let wasFile = forget(path: path, relativePath: relativePath, display: display)
            var info = stat()
            let exists = lstat(path, &info) == 0
            let isFolder = exists && info.st_mode & S_IFMT == S_IFDIR
            if isFolder || !exists && !wasFile {
                // A folder, here now or gone: the files that came or went under it are its
                // changes (a file's own edits are its own events: a touched folder changes nothing).
                let before = forgetFiles(under: relativePath, displayRoot: displayRoot)
                if isFolder {
                    let depth = UTF8Scan.slashes(in: relativePath) + 1
                    guard depth < 32 else { return nil }
                    walk(relative: relativePath, displayRoot: displayRoot, depth: depth)
                }
                changed.formUnion(before.symmetricDifference(knownFiles(under: relativePath)))
                continue
            }
            guard exists else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG: classify(SourceFile(root: root, relativePath: relativePath), relativePath: relativePath, display: display)
            default: refuse(path: path, relativePath: relativePath, display: display, mode: info.st_mode)
            }
        }
        return changed
    }

    /// Forgets every file known under the folder `relativePath`, all at once (a folder of
    /// 10,000 translation files forgotten one by one would search the list 10,000 times);
    /// returns their paths.
    private mutating func forgetFiles(under relativePath: String, displayRoot: String) -> Set<String> {
        let prefix = relativePath + "/"
        let isUnder = { (file: SourceFile) in file.isUnder(prefix) }
        var gone = Set<String>()
        // Walked by value, a lookup only for the few lists that hold a file under the folder.
        for (id, files) in pages where files.contains(where: isUnder) {
            for file in Self.take(from: &pages, at: id, where: isUnder) { gone.insert(file.path) }
        }
        let isTranslationUnder = { (translation: TranslationFile) in isUnder(translation.file) }
        for (id, files) in translationsByPage where files.contains(where: isTranslationUnder) {
            for translation in Self.take(from: &translationsByPage, at: id, where: isTranslationUnder) {
                gone.insert(translation.file.path)
            }
        }
        refusedTranslations.removeAll { isUnder($0.file) }
        for (name, file) in assets where isUnder(file) {
            assets[name] = nil
            gone.insert(file.path)
        }
        let displayPrefix = "\(displayRoot)/\(prefix)"
        diagnostics.removeAll { $0.file.hasPrefix(displayPrefix) }
        return gone
    }

    /// The paths of the page, translation and asset files known under the folder `relativePath`.
    private func knownFiles(under relativePath: String) -> Set<String> {
        let prefix = relativePath + "/"
        var files = Set<String>()
        for file in pages.values.joined() where file.isUnder(prefix) { files.insert(file.path) }
        for translation in translationsByPage.values.joined() where translation.file.isUnder(prefix) {
            files.insert(translation.file.path)
        }
        for file in assets.values where file.isUnder(prefix) { files.insert(file.path) }
        return files
    }

    /// Takes the files that `match` out of the list at `key`, and the key with its last file;
    /// returns what was taken. Pages and translation files are both listed by page id.
    private static func take<File>(from lists: inout [String: [File]], at key: String, where match: (File) -> Bool) -> [File] {
        guard let files = lists[key], files.contains(where: match) else { return [] }
        let rest = files.filter { !match($0) }
        lists[key] = rest.isEmpty ? nil : rest
        return files.filter(match)
    }

    /// Forgets what is known of `path`; returns whether it was known as a page, translation or asset file.
    @discardableResult
    private mutating func forget(path: String, relativePath: String, display: String) -> Bool {
        var wasFile = false
        if siteFile?.path == path {
            siteFile = nil
            wasFile = true
        }
        if vocabularyFile?.path == path {
            vocabularyFile = nil
            wasFile = true
        }
        switch SitePath(relativePath) {
        case .page(let id, _):
            if !Self.take(from: &pages, at: id, where: { $0.path == path }).isEmpty { wasFile = true }
        case .translation(let name):
            if let pageID = name?.pageID, !Self.take(from: &translationsByPage, at: pageID, where: { $0.file.path == path }).isEmpty {
                wasFile = true
            }
            refusedTranslations.removeAll { $0.file.path == path }
        case .asset(let name):
            if assets.removeValue(forKey: name) != nil { wasFile = true }
        case .siteFile, .vocabularyFile:
            break
        }
        if let refused = refusedSettingsFile, "\(root)/\(refused)" == path { refusedSettingsFile = nil }
        diagnostics.removeAll { $0.file == display }
        return wasFile
    }

    private mutating func walk(relative: String, displayRoot: String, depth: Int) {
        let directory = relative.isEmpty ? root : "\(root)/\(relative)"
        guard depth < 32 else {
            diagnostics.append(
                .error("\(displayRoot)/\(relative)", "folders nest deeper than 32 levels: this folder is not read; move its files up"))
            return
        }
        // readdir's types spare an lstat per file (30,000 at 10,000 pages, before any page is
        // read); only a file system that leaves the type unknown, and what is neither a folder
        // nor a regular file, is asked. Sorted by bytes, the order every build sees.
        var entries: [(name: String, type: UInt8)] = []
        do throws(StoreError) {
            try FileSystem.forEachEntry(of: directory, opening: { opendir(directory) }) { name, type in
                entries.append((String(cString: name), type))
            }
        } catch {
            let reason = error.errorNumber.map { String(cString: strerror($0)) } ?? error.description
            diagnostics.append(.error("\(displayRoot)/\(relative)", "cannot list this folder: \(reason)"))
            return
        }
        entries.sort { $0.name.utf8Precedes($1.name) }
        for (name, type) in entries where !EditorTempFiles.isIgnored(name) {
            let relativePath = relative.isEmpty ? name : String(concatenating: relative, "/", name)
            let file = SourceFile(root: root, relativePath: relativePath)
            let path = file.path
            let mode: mode_t
            switch Int32(type) {
            case Int32(DT_DIR): mode = S_IFDIR
            case Int32(DT_REG): mode = S_IFREG
            default:
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }  // vanished since listing
                mode = info.st_mode
            }
            if mode & S_IFMT == S_IFDIR {
                walk(relative: relativePath, displayRoot: displayRoot, depth: depth + 1)
                continue
            }
            if mode & S_IFMT == S_IFREG {
                classify(file, relativePath: relativePath, display: String(concatenating: displayRoot, "/", relativePath))
            } else {
                refuse(path: path, relativePath: relativePath, display: "\(displayRoot)/\(relativePath)", mode: mode)
            }
        }
    }

    /// A symbolic link, FIFO, device or socket: reported, never opened.
    private mutating func refuse(path: String, relativePath: String, display: String, mode: mode_t) {
        if mode & S_IFMT == S_IFLNK {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            diagnostics.append(
                .error(
                    display,
                    "refused: a symbolic link (to '\(target)'); quire reads only regular files inside pages/: put the file itself here"))
        } else {
            diagnostics.append(
                .error(
                    display, "refused: \(Self.kindName(mode)), not a regular file; quire reads only regular files inside pages/: remove it")
            )
        }
        noteRefused(relativePath)
    }

    private mutating func noteRefused(_ relativePath: String) {
        switch SitePath(relativePath) {
        case .siteFile, .vocabularyFile:
            refusedSettingsFile = relativePath
        case .translation(let name?):
            // Whatever its extension: a refused file is never read.
            refusedTranslations.append(
                TranslationFile(
                    file: SourceFile(root: root, relativePath: relativePath), locale: name.locale, pageID: name.pageID)
            )
        case .translation(nil), .asset, .page:
            break
        }
    }

    static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "a special file"
        }
    }

    /// `relativePath`: the file's, as the caller has it. `display` becomes a string only for a
    /// diagnostic: most files have none.
    private mutating func classify(_ file: SourceFile, relativePath: String, display: @autoclosure () -> String) {
        switch SitePath(relativePath) {
        case .siteFile:
            if siteFile == nil { siteFile = file } else { diagnostics.append(.error(display(), "a second site file: keep only site.yaml")) }
        case .vocabularyFile:
            if vocabularyFile == nil {
                vocabularyFile = file
            } else {
                diagnostics.append(.error(display(), "a second vocabulary file: keep only one"))
            }
        case .asset(let name):
            guard MediaType.named(name) != nil else { return diagnostics.append(.error(display(), MediaType.unknownExtension)) }
            assets[name] = file
        case .translation(let name):
            guard let name, name.isTranslationFormat else {
                diagnostics.append(
                    .warning(display(), "not a translation file: translations go in l10n/<locale>/<page_id>.(yaml|json|xlf|po); ignored"))
                return
            }
            let translation = TranslationFile(file: file, locale: name.locale, pageID: name.pageID)
            translationsByPage[translation.pageID, default: []].append(translation)
        case .page(let id, let pathExtension):
            guard SitePath.isPageSource(extension: pathExtension) else {
                diagnostics.append(.warning(display(), "not a page source (.json, .yaml or .yml): ignored"))
                return
            }
            if let problem = PageID.problem(id) {
                diagnostics.append(.error(display(), "'\(id)' is not a valid page id: \(problem); rename the file"))
                return
            }
            pages[id, default: []].append(file)
        }
    }

    /// `path` split at `/` (empty segments omitted), as `split(separator: "/", maxSplits:)`
    /// splits it. An ASCII path is split on its bytes, in place: a `/` there always ends a
    /// character, and the character walk (or a generic split of the UTF-8 view) cost more than
    /// the rest of filing a translation file.
    static func segments(of path: String, maxSplits: Int) -> [String] {
        let split = path.utf8.withContiguousStorageIfAvailable { bytes -> [String]? in
            guard maxSplits > 0, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            func segment(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
            var parts: [String] = []
            var start = 0
            var index = 0
            while index < bytes.count {
                guard bytes[index] == UInt8(ascii: "/") else {
                    index += 1
                    continue
                }
                let appended = start != index
                if appended { parts.append(segment(start..<index)) }
                index += 1
                start = index
                if appended && parts.count == maxSplits { break }
            }
            if start != bytes.count { parts.append(segment(start..<bytes.count)) }
            return parts
        }
        return (split ?? nil) ?? path.split(separator: "/", maxSplits: maxSplits).map(String.init)
    }

    static func splitExtension(_ path: String) -> (stem: String, pathExtension: String) {
        // By bytes: `String.lastIndex(of:)` walks grapheme clusters, and this runs for every file.
        let bytes = path.utf8
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), !bytes[dot...].contains(UInt8(ascii: "/")) else { return (path, "") }
        return (String(path[..<dot]), String(path[path.index(after: dot)...]).lowercased())
    }
}

/// Page ids: `[a-z0-9_-]` segments joined by `/`.
public enum PageID {
    public static func problem(_ id: String) -> String? {
        isPlainlyValid(id) ? nil : checkedProblem(id)
    }

    /// `problem` without its shortcut (`FastPathTests` compares the two).
    static func checkedProblem(_ id: String) -> String? {
        let segments = id.split(separator: "/", omittingEmptySubsequences: false)
        for segment in segments {
            if segment.isEmpty { return "it has an empty path segment" }
            if segment == "." || segment == ".." { return "'..' and '.' are not allowed" }
            if !Identifier.isValid(String(segment)) { return "'\(segment)' has characters outside [a-z0-9_-] (\(Identifier.rule))" }
        }
        if id == "index" { return "'index' is reserved: '<locale>/index.json' is the page index" }
        if ["site", "vocabulary"].contains(id) { return "'\(id)' is reserved" }
        return nil
    }

    /// True for an id the checks above pass, decided in one walk of its bytes: `[a-z0-9_-]`
    /// segments, none empty, and not reserved. Anything else takes the checks for its message.
    static func isPlainlyValid(_ id: String) -> Bool {
        var previous = UInt8(ascii: "/")
        for byte in id.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"): break
            case UInt8(ascii: "/") where previous != UInt8(ascii: "/"): break
            default: return false
            }
            previous = byte
        }
        return previous != UInt8(ascii: "/") && id != "site" && id != "vocabulary" && id != "index"
    }
}
