import Foundation
import Glibc
import QuireCore

/// One site's folder under `pages/`, and the only way the service names a file in it: every
/// path is made from a checked site name and page id (or asset name), never from request text
/// as it came, and every folder on the way is checked with `lstat` to be a real folder (a
/// symbolic link anywhere on the way is refused), so nothing outside `pages/<site>/` is touched.
struct SiteFolder {
    let site: String
    /// Absolute.
    let root: String

    /// The page source formats, by extension, in the order a page id's file is looked for.
    static let extensions = ["yaml", "yml", "json"]
    /// Folders of a site that hold no pages.
    static let reservedFolders: Set<String> = ["assets", "l10n"]

    init(pagesRoot: String, site: String, sites: [String]) throws(DashboardError) {
        guard Identifier.isValid(site), sites.contains(site) else { throw .notFound("no site '\(site)'") }
        self.site = site
        root = pagesRoot + "/" + site
        guard Self.isRealFolder(root) else { throw .notFound("no site '\(site)'") }
    }

    /// A page id as the rule has it, and not one of the site's reserved names.
    static func checkPageID(_ id: String) throws(DashboardError) {
        if let problem = PageID.problem(id) { throw .badRequest("'\(id)' is not a valid page id: \(problem)") }
        if let first = id.split(separator: "/").first, reservedFolders.contains(String(first)) {
            throw .badRequest("'\(id)' is not a page id: \(first)/ holds the site's \(first == "assets" ? "assets" : "translations")")
        }
    }

    /// The source of page `id` (`id.yaml`, `.yml` or `.json`), nil when there is none. Refuses a
    /// link or anything but a regular file, and two files claiming the id.
    func pageSource(_ id: String) throws(DashboardError) -> PageFile? {
        try Self.checkPageID(id)
        try checkFolders(of: id)
        var found: [PageFile] = []
        for pathExtension in Self.extensions {
            let relative = "\(id).\(pathExtension)"
            var info = stat()
            guard lstat(root + "/" + relative, &info) == 0 else { continue }
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw DashboardError(.forbidden, "\(site)/\(relative) is \(Self.kind(info.st_mode)), not a page source: it is not touched")
            }
            found.append(PageFile(folder: self, relativePath: relative))
        }
        guard found.count <= 1 else {
            throw DashboardError(
                .conflict, "page '\(id)' is claimed by \(found.map(\.relativePath).joined(separator: " and ")): keep one (in a text editor)"
            )
        }
        return found.first
    }

    /// The file a new page `id` gets, in `format`; its folders are not made yet.
    func newPage(_ id: String, format: SourceFormat) throws(DashboardError) -> PageFile {
        try Self.checkPageID(id)
        return PageFile(folder: self, relativePath: "\(id).\(format == .json ? "json" : "yaml")")
    }

    /// Every folder between the site folder and `relativePath`'s file must be a real folder or not
    /// exist yet.
    func checkFolders(of relativePath: String) throws(DashboardError) {
        var path = root
        for segment in relativePath.split(separator: "/").dropLast() {
            path += "/" + segment
            var info = stat()
            if lstat(path, &info) != 0 { return }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw DashboardError(
                    .forbidden, "\(site)/\(path.dropFirst(root.count + 1)) is \(Self.kind(info.st_mode)): it is not followed")
            }
        }
    }

    /// Makes the folders of `relativePath` that are missing (0755), refusing anything in the way.
    func makeFolders(of relativePath: String) throws(DashboardError) {
        try checkFolders(of: relativePath)
        var path = root
        for segment in relativePath.split(separator: "/").dropLast() {
            path += "/" + segment
            if mkdir(path, 0o755) != 0 && errno != EEXIST { throw WriteFailure(errno: errno, operation: "mkdir").error }
            guard Self.isRealFolder(path) else { throw DashboardError(.forbidden, "\(path) is not a folder") }
        }
    }

    static func isRealFolder(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFLNK: return "a symbolic link"
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "not a regular file"
        }
    }
}

/// A page source of a site (there or to be made).
struct PageFile {
    let folder: SiteFolder
    let relativePath: String

    var path: String { folder.root + "/" + relativePath }
    var format: SourceFormat { relativePath.hasSuffix(".json") ? .json : .yaml }
}
