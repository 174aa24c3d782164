import QuireCore

/// The media an editor may upload from the dashboard: the images apps draw, told from the bytes
/// by the build's own list (`MediaType`), never from the name or the request. SVG is refused: it
/// is a document that can carry script.
enum UploadTypes {
    static let accepted: Set<String> = ["image/jpeg", "image/png", "image/webp", "image/gif"]

    /// The type of an upload's bytes, or why it is refused.
    static func type(of bytes: [UInt8]) -> Result<MediaType, DashboardError> {
        guard let type = MediaType.of(bytes) else {
            return .failure(DashboardError(.unsupportedMediaType, "not an image: upload a JPEG, PNG, WebP or GIF (told from the bytes)"))
        }
        guard accepted.contains(type.mime) else {
            let why = type.mime == "image/svg+xml" ? "SVG is refused: it can carry script" : "\(type.mime) cannot be uploaded here"
            return .failure(DashboardError(.unsupportedMediaType, "\(why); upload a JPEG, PNG, WebP or GIF"))
        }
        return .success(type)
    }
}
