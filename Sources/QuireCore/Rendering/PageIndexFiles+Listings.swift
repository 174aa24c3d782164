import Foundation
import QuireModel

/// Each locale's listings, read from a build's output files.
extension PageIndexFiles {
    /// What one locale's served files say, page by page (`listings`): the listing of each page's
    /// public first part (with its audience variants' names), and whether this build wrote one
    /// of its files anew. Rows in the order the pages came, and a table of their positions: a
    /// table of whole listings, sized for every file, had room for twice the pages, and filling
    /// it touched every page of memory it spanned.
    struct LocaleFiles {
        struct Row {
            let pageID: String
            var listing: Listing?
            var changed = false
            var audiences: Set<String> = []
        }

        fileprivate(set) var rows: [Row] = []
        private var positions: [String: Int]

        init(expected: Int) {
            positions = Dictionary(minimumCapacity: expected)
            rows.reserveCapacity(expected)
        }

        /// The row of `pageID`, added when it has none.
        fileprivate mutating func row(_ pageID: String) -> Int {
            if let position = positions[pageID] { return position }
            rows.append(Row(pageID: pageID))
            positions[pageID] = rows.count - 1
            return rows.count - 1
        }

        /// The page's listing; nil when it has no public first part in the locale.
        func listing(of pageID: String) -> Listing? { positions[pageID].flatMap { rows[$0].listing } }

        func changed(_ pageID: String) -> Bool { positions[pageID].map { rows[$0].changed } ?? false }
    }

    /// What `locale`'s served files say (`LocaleFiles`); a file is written anew when its input
    /// differs from the newest version's (the rule `build.json`'s `changes` follows).
    /// `expected`: about how many pages there are (the tables are sized once).
    static func listings(
        _ files: some Sequence<OutputFile>, locale: String, published: [String: PublishedFile], expected: Int = 0
    ) -> LocaleFiles {
        var found = LocaleFiles(expected: expected)
        // A page file's path starts with its locale (`PageFilePath.path`): the other locales'
        // files are passed over without reading their metadata.
        let folder = locale + "/"
        for file in files where UTF8Scan.hasPrefix(file.path, folder) && OutputPath.servesPage(file.path) {
            let page = OutputMetadata(file.metadata)
            guard page.locale == locale, let metadata = file.metadata, let pageID = page.pageID, let ttl = page.ttl else { continue }
            let wroteAnew =
                switch file.content {
                case .carried: false
                default: published[file.path]?.inputDigest != file.inputDigest
                }
            let row = found.row(pageID)
            if wroteAnew { found.rows[row].changed = true }
            if let audience = page.audience {
                found.rows[row].audiences.insert(audience)
            } else if page.part == 1 {
                found.rows[row].listing = Listing(
                    title: page.title, ttl: ttl, parts: page.parts,
                    publishAt: metadata["publish_at"]?.stringValue, summary: metadata["summary"]?.stringValue,
                    imageURL: metadata["image_url"]?.stringValue, tags: metadata["tags"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            }
        }
        for row in found.rows.indices where !found.rows[row].audiences.isEmpty {
            let names = found.rows[row].audiences.sorted()
            found.rows[row].listing?.audiences = names
        }
        return found
    }
}
