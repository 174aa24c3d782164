import QuireModel

/// One page's part of the status files: its object in `status.json`'s pages (written at depth 2)
/// and its row in the status page's table. Both depend only on the page id, the site's locales
/// and the page's diagnostics.
struct StatusPagePart {
    var value: [UInt8]
    var row: [UInt8]

    /// The long way: the page's JSON value built, written, and drawn as a row.
    init(_ pageID: String, locales: [String], diagnostics: [Diagnostic]) {
        let page = StatusReport.page(pageID, locales: locales, diagnostics: diagnostics)
        var bytes: [UInt8] = []
        JSONWriter(pretty: true).append(page, depth: 2, to: &bytes)
        self.init(value: bytes, row: StatusPage.PageRows.row(pageID, page, columns: locales))
    }

    init(value: [UInt8], row: [UInt8]) {
        self.value = value
        self.row = row
    }

    /// The part of a page without diagnostics, put together from pieces cut once for a set of
    /// locales: the page id goes between them as it is, so only an id that neither JSON, HTML
    /// nor the preview link's check treats specially is put together this way (every page id
    /// of a site is). A cold build's 10,000 pages each built, wrote and drew their part.
    struct Template {
        private var value: [[UInt8]] = []
        private var row: [[UInt8]] = []
        private(set) var isUsable = false

        init(locales: [String]) {
            guard locales.allSatisfy(Self.isPlain) else { return }
            let sample = StatusPagePart(Self.placeholder, locales: locales, diagnostics: [])
            value = Self.pieces(of: sample.value)
            row = Self.pieces(of: sample.row)
            // Checked once with another id: pieces that would not give the long way's bytes are not used.
            isUsable = true
            let check = "a/b-c_d.e"
            let long = StatusPagePart(check, locales: locales, diagnostics: [])
            isUsable = part(check).map { $0.value == long.value && $0.row == long.row } ?? false
        }

        /// The part of `pageID` without diagnostics, or nil when it must take the long way.
        func part(_ pageID: String) -> StatusPagePart? {
            guard fits(pageID) else { return nil }
            var part = StatusPagePart(value: [], row: [])
            appendValue(pageID, to: &part.value)
            appendRow(pageID, to: &part.row)
            return part
        }

        /// Whether `part` puts together the part of `pageID` (else it takes the long way).
        func fits(_ pageID: String) -> Bool { isUsable && Self.isPlain(pageID) }

        /// Appends the part of `pageID`, one that `fits`, to `status.json`'s bytes.
        func appendValue(_ pageID: String, to value: inout [UInt8]) { Self.join(self.value, pageID, into: &value) }

        /// Appends the row of `pageID`, one that `fits`, to the status page's table.
        func appendRow(_ pageID: String, to row: inout [UInt8]) { Self.join(self.row, pageID, into: &row) }

        /// Letters, digits, `-`, `_`, `.` and `/`: escaped by no writer, no scheme in a link.
        static func isPlain(_ text: String) -> Bool {
            !text.isEmpty
                && text.utf8.allSatisfy { byte in
                    switch byte {
                    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                        UInt8(ascii: "/"):
                        true
                    default: false
                    }
                }
        }

        private static let placeholder = "quire-status-page-id-0x7f3a"

        /// `bytes` cut where the placeholder stands.
        private static func pieces(of bytes: [UInt8]) -> [[UInt8]] {
            let mark = Array(placeholder.utf8)
            var pieces: [[UInt8]] = []
            var start = 0
            var index = 0
            while index + mark.count <= bytes.count {
                if bytes[index] == mark[0], bytes[index..<index + mark.count].elementsEqual(mark) {
                    pieces.append(Array(bytes[start..<index]))
                    index += mark.count
                    start = index
                } else {
                    index += 1
                }
            }
            pieces.append(Array(bytes[start...]))
            return pieces
        }

        private static func join(_ pieces: [[UInt8]], _ pageID: String, into bytes: inout [UInt8]) {
            for (index, piece) in pieces.enumerated() {
                if index > 0 { bytes += pageID.utf8 }
                bytes += piece
            }
        }
    }
}
