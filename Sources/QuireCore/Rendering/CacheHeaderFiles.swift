import QuireModel

/// Turns each page's `ttl` into files web servers read, published in every version under
/// `http/` (a version's files live in folders; `deploy/nginx.conf` keeps `http/` private):
///
/// - `nginx-ttl.map`: entries of an nginx `map $uri $quire_max_age { ... }` block, one per public
///   page file under `/<site>/current/`; `deploy/nginx.conf` includes every site's
///   `current/nginx-ttl.map` and sends `Cache-Control: public, max-age=$quire_max_age`.
/// - `_headers`: the Netlify / Cloudflare Pages format, paths relative to the version folder,
///   for hosts that serve a copy of `current/` as the site root (copy it to the root there).
///
/// Neither names the version, so an unchanged set of TTLs is shared between versions.
///
/// Both list every page file (30,000 lines at 10,000 pages × 3 locales), so their lines are kept
/// per output folder: a page that comes or goes renders its folder's lines again, not the site's.
public struct CacheHeaderFiles: Sendable {
    public static let nginxMapName = "http/nginx-ttl.map"
    public static let headersName = "http/_headers"

    /// The cache lifetime of one published page file.
    struct Entry: Sendable, Equatable {
        var ttl: Int
        /// An audience variant: `private`, and not in the nginx map.
        var isPrivate: Bool
    }

    /// One output folder's page files in name order (one entry a name), and their lines once
    /// rendered: kept sorted, so rendering the folder again never sorts it.
    private struct Folder: Sendable {
        var entries: [(name: String, entry: Entry)] = []
        var lines: (map: [UInt8], headers: [UInt8])?

        /// Where `name` is, or would be inserted (by bisection).
        func position(of name: String) -> (index: Int, found: Bool) {
            var (low, high) = (0, entries.count)
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].name < name { low = middle + 1 } else { high = middle }
            }
            return (low, low < entries.count && entries[low].name == name)
        }
    }

    let site: String
    private var folders: [String: Folder] = [:]

    /// The entries of the page files among a version's files (those with `ttl` and `page_id` or
    /// `feed` metadata).
    /// Grouped by folder, then each folder sorted once (a later file of the same path wins):
    /// setting 30,000 entries one by one hashed each path's folder and name five times.
    init(site: String, files: [OutputFile]) { self.init(site: site, files: files.lazy.map { ($0.path, $0.metadata) }) }

    init(site: String, files: some Sequence<(path: String, metadata: JSONValue?)>) {
        self.site = site
        var grouped: [String: [(name: String, entry: Entry)]] = [:]
        for file in files {
            guard let entry = Self.entry(file.metadata) else { continue }
            let (folder, name) = Self.split(file.path)
            grouped[folder, default: []].append((name, entry))
        }
        for (folder, entries) in grouped {
            // Stable: of equal names, the last one set comes last.
            let sorted = entries.sorted { $0.name < $1.name }
            var unique: [(name: String, entry: Entry)] = []
            unique.reserveCapacity(sorted.count)
            for named in sorted {
                if let last = unique.last, last.name == named.name { unique[unique.count - 1] = named } else { unique.append(named) }
            }
            folders[folder] = Folder(entries: unique)
        }
    }

    static func entry(_ metadata: JSONValue?) -> Entry? {
        let page = OutputMetadata(metadata)
        guard page.pageID != nil || page.feed != nil, let ttl = page.ttl else { return nil }
        return Entry(ttl: ttl, isPrivate: page.audience != nil)
    }

    /// `en` and `p.json` of `en/p.json`, cut at the last `/` found in the path's bytes (30,000
    /// paths in a cold build: the string's own index walk cost more than the rest of an entry).
    private static func split(_ path: String) -> (folder: String, name: String) {
        path.utf8Split(atLast: UInt8(ascii: "/")).map { (folder: $0.before, name: $0.after) } ?? ("", path)
    }

    /// Sets the entry of the page file at `path` (nil: it is no page file now); returns whether
    /// that changed anything.
    @discardableResult
    mutating func set(_ path: String, _ entry: Entry?) -> Bool {
        let (folderName, fileName) = Self.split(path)
        let (index, found) = folders[folderName]?.position(of: fileName) ?? (0, false)
        guard (found ? folders[folderName]?.entries[index].entry : nil) != entry else { return false }
        var folder = folders.removeValue(forKey: folderName) ?? Folder()
        if let entry {
            if found { folder.entries[index].entry = entry } else { folder.entries.insert((fileName, entry), at: index) }
        } else {
            folder.entries.remove(at: index)
        }
        folder.lines = nil
        if !folder.entries.isEmpty { folders[folderName] = folder }
        return true
    }

    /// Both files: folders in path order, each folder's files in name order. Only folders changed
    /// since the last call render their lines again.
    mutating func files(published: [String: PublishedFile]) -> [OutputFile] {
        var map = Array("# Generated by quire: per-page Cache-Control max-age for /\(site)/current/.\n".utf8)
        var headers = Array("# Generated by quire: per-page Cache-Control, paths relative to this version.\n".utf8)
        for name in folders.keys.sorted() {
            guard let folder = folders[name] else { continue }
            let lines: (map: [UInt8], headers: [UInt8])
            if let kept = folder.lines {
                lines = kept
            } else {
                lines = render(folder, named: name)
                folders[name]?.lines = lines
            }
            map += lines.map
            headers += lines.headers
        }
        return [Self.file(Self.nginxMapName, map, published: published), Self.file(Self.headersName, headers, published: published)]
    }

    /// A folder's lines, appended piece by piece: an interpolated string a line was most of a
    /// cold build's time here.
    private func render(_ folder: Folder, named name: String) -> (map: [UInt8], headers: [UInt8]) {
        let prefix = name.isEmpty ? "" : name + "/"
        var mapPrefix = Array("\"".utf8)
        NginxQuoting.appendEscaped("/\(site)/current/\(prefix)", to: &mapPrefix)
        let headerPrefix = Array("/\(prefix)".utf8)
        var map: [UInt8] = []
        var headers: [UInt8] = []
        map.reserveCapacity(folder.entries.count * (mapPrefix.count + 32))
        headers.reserveCapacity(folder.entries.count * (headerPrefix.count + 64))
        var ttl = (value: Int.min, text: "")
        for (file, page) in folder.entries {
            if page.ttl != ttl.value { ttl = (page.ttl, String(page.ttl)) }
            if !page.isPrivate {
                map += mapPrefix
                NginxQuoting.appendEscaped(file, to: &map)
                map += "\" ".utf8
                map += ttl.text.utf8
                map += ";\n".utf8
            }
            headers += headerPrefix
            headers += file.utf8
            headers += page.isPrivate ? "\n  Cache-Control: private, max-age=".utf8 : "\n  Cache-Control: public, max-age=".utf8
            headers += ttl.text.utf8
            headers.append(UInt8(ascii: "\n"))
        }
        return (map, headers)
    }

    private static func file(_ path: String, _ bytes: [UInt8], published: [String: PublishedFile]) -> OutputFile {
        let digest = SHA256.digest(bytes)
        return OutputFile(path: path, content: published[path]?.sha256 == digest ? .carried : .bytes(bytes), inputDigest: digest)
    }

    // MARK: The restart file

    /// The entries, folder by folder; their lines are rendered again when first asked for.
    func write(to writer: inout BinaryWriter) {
        writer.array(folders) { writer, folder in
            writer.string(folder.key)
            writer.array(folder.value.entries) { writer, named in
                writer.string(named.name)
                writer.int(named.entry.ttl)
                writer.bool(named.entry.isPrivate)
            }
        }
    }

    init(site: String, reading reader: inout BinaryReader) throws(BinaryReader.Malformed) {
        self.site = site
        let count = try reader.count()
        folders.reserveCapacity(count)
        for _ in 0..<count {
            let name = try reader.string()
            let entries = try reader.array { reader throws(BinaryReader.Malformed) in
                (name: try reader.string(), entry: Entry(ttl: try reader.int(), isPrivate: try reader.bool()))
            }
            folders[name] = Folder(entries: entries)
        }
    }
}
