/// Reads an asset for publishing: within the size limit, and only when its bytes are the media
/// type its name claims (`MediaType`). Both build paths read assets here.
struct AssetReader {
    private let reader = SourceFileReader(maxBytes: 64 * 1024 * 1024)

    /// The bytes, or the error to report at the file (the asset is then not published, or keeps
    /// the copy the last version published).
    func read(_ file: SiteInventory.SourceFile, display: String) -> Result<[UInt8], Diagnostic> {
        do throws(SourceReadError) {
            let bytes = try reader.read(file.path)
            if let problem = MediaType.problem(name: file.relativePath, bytes: bytes) { return .failure(.error(display, problem)) }
            return .success(bytes)
        } catch {
            return .failure(.error(display, "this file \(error.message)"))
        }
    }
}
