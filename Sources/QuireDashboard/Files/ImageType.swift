/// The image types an upload may be, told from the bytes, never from the name or the request.
/// SVG is refused: it is a document that can carry script.
enum ImageType: String, CaseIterable {
    case jpeg = "image/jpeg"
    case png = "image/png"
    case webp = "image/webp"
    case gif = "image/gif"

    /// The extensions a file of this type may have.
    var extensions: [String] {
        switch self {
        case .jpeg: return ["jpg", "jpeg"]
        case .png: return ["png"]
        case .webp: return ["webp"]
        case .gif: return ["gif"]
        }
    }

    init?(bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(16))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<offset + signature.count]) == signature
        }
        if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .gif
        } else {
            return nil
        }
    }

    /// Whether the bytes look like markup (SVG, HTML): said apart, since the refusal differs.
    static func looksLikeMarkup(_ bytes: some Collection<UInt8>) -> Bool {
        let text = String(decoding: bytes.prefix(1024), as: UTF8.self).lowercased()
        return text.contains("<svg") || text.contains("<?xml") || text.contains("<html") || text.contains("<script")
    }
}
