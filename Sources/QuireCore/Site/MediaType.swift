/// The kinds of file a site's `assets/` may hold: the media apps render, each known by its
/// bytes and named by its extension. Nothing else is published, since a file served as itself
/// (an HTML page, a script) would run on the origin that serves it. One list: the scan refuses
/// other extensions, the build checks the bytes against the extension, and the nginx rules'
/// `types` are made from it.
public struct MediaType: Sendable, Equatable {
    public let mime: String
    public let extensions: [String]
    /// Whether the bytes are of this type.
    let matches: @Sendable ([UInt8]) -> Bool

    public static func == (lhs: MediaType, rhs: MediaType) -> Bool { lhs.mime == rhs.mime }

    public static let all: [MediaType] = [
        MediaType(mime: "image/jpeg", extensions: ["jpg", "jpeg"]) { $0.starts(with: [0xFF, 0xD8, 0xFF]) },
        MediaType(mime: "image/png", extensions: ["png"]) { $0.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) },
        MediaType(mime: "image/gif", extensions: ["gif"]) {
            $0.starts(with: Array("GIF87a".utf8)) || $0.starts(with: Array("GIF89a".utf8))
        },
        MediaType(mime: "image/webp", extensions: ["webp"]) { $0.starts(with: Array("RIFF".utf8)) && at($0, 8, "WEBP") },
        MediaType(mime: "image/avif", extensions: ["avif"]) { isoBrand($0).map { ["avif", "avis"].contains($0) } ?? false },
        MediaType(mime: "image/svg+xml", extensions: ["svg"]) { isSVG($0) },
        MediaType(mime: "video/mp4", extensions: ["mp4", "m4v"]) { isoBrand($0).map { !["avif", "avis"].contains($0) } ?? false },
        MediaType(mime: "video/webm", extensions: ["webm"]) { $0.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) },
        MediaType(mime: "application/pdf", extensions: ["pdf"]) { $0.starts(with: Array("%PDF-".utf8)) },
        MediaType(mime: "font/woff", extensions: ["woff"]) { $0.starts(with: Array("wOFF".utf8)) },
        MediaType(mime: "font/woff2", extensions: ["woff2"]) { $0.starts(with: Array("wOF2".utf8)) },
        MediaType(mime: "font/ttf", extensions: ["ttf"]) {
            $0.starts(with: [0x00, 0x01, 0x00, 0x00]) || $0.starts(with: Array("true".utf8))
        },
        MediaType(mime: "font/otf", extensions: ["otf"]) { $0.starts(with: Array("OTTO".utf8)) },
    ]

    /// The type an asset's name claims (by its extension, in any case), or nil.
    public static func named(_ name: String) -> MediaType? {
        guard let dot = name.lastIndex(of: "."), !name[dot...].contains("/") else { return nil }
        let pathExtension = name[name.index(after: dot)...].lowercased()
        return all.first { $0.extensions.contains(pathExtension) }
    }

    /// The type of these bytes, or nil when they are none of the media types.
    public static func of(_ bytes: [UInt8]) -> MediaType? { all.first { $0.matches(bytes) } }

    /// Why an asset named `name` with these bytes is not published, or nil when it is fine.
    public static func problem(name: String, bytes: [UInt8]) -> String? {
        guard let claimed = named(name) else { return Self.unknownExtension }
        if claimed.matches(bytes) { return nil }
        if let actual = of(bytes) {
            return "holds \(actual.mime) but is named .\(claimed.extensions[0]): rename it .\(actual.extensions[0]) (not published)"
        }
        return "is not \(claimed.mime): its bytes are none of the media types assets may hold (not published)"
    }

    public static let unknownExtension =
        "not a media file: assets are images (jpg, png, gif, webp, avif, svg), video (mp4, webm), pdf or fonts (woff, woff2, ttf, otf), "
        + "since anything else would be served as itself (not published)"

    private static func at(_ bytes: [UInt8], _ offset: Int, _ text: String) -> Bool {
        let expected = Array(text.utf8)
        return bytes.count >= offset + expected.count && Array(bytes[offset..<offset + expected.count]) == expected
    }

    /// The major brand of an ISO base media file (MP4, AVIF): its first box is `ftyp`.
    private static func isoBrand(_ bytes: [UInt8]) -> String? {
        guard at(bytes, 4, "ftyp"), bytes.count >= 12 else { return nil }
        return String(decoding: bytes[8..<12], as: UTF8.self)
    }

    /// An SVG document: after a byte order mark, white space, an XML declaration, comments and a
    /// doctype, the first element is `<svg`. (Served under a sandboxing policy: its scripts never run.)
    private static func isSVG(_ bytes: [UInt8]) -> Bool {
        var text = Substring(decoding: bytes.prefix(4096), as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
        while true {
            text = text.drop(while: { $0.isWhitespace })
            if text.hasPrefix("<?") || text.hasPrefix("<!") {
                let end = text.hasPrefix("<!--") ? "-->" : ">"
                guard let close = text.range(of: end) else { return false }
                text = text[close.upperBound...]
                continue
            }
            return text.hasPrefix("<svg") && text.dropFirst(4).first.map { $0.isWhitespace || $0 == ">" || $0 == "/" } == true
        }
    }
}
