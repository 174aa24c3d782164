/// Reads an asset for publishing: within the size limit, and only when its bytes are the media
/// type its name claims (`MediaType`). Both planners read assets here (`files`).
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
            return .failure(error.diagnostic(display))
        }
    }

    /// The output files of `assets` (name under `assets/` -> its file), in name order, and the
    /// digest of each one's bytes by absolute path. One whose bytes the newest version holds is
    /// carried; `knownDigest` gives the digest of one that need not be read again (nil: read it).
    /// One that cannot be read is left out, its error in `diagnostics`.
    func files(
        _ assets: [String: SiteInventory.SourceFile], displayRoot: String, published: [String: PublishedFile],
        knownDigest: (SiteInventory.SourceFile, _ path: String) -> Digest? = { _, _ in nil }, diagnostics: inout [Diagnostic]
    ) -> (files: [OutputFile], digests: [String: Digest]) {
        var files: [OutputFile] = []
        var digests: [String: Digest] = [:]
        for (name, file) in assets.sorted(by: { $0.key < $1.key }) {
            let path = "assets/\(name)"
            if let digest = knownDigest(file, path) {
                digests[file.path] = digest
                files.append(OutputFile(path: path, content: .carried, inputDigest: digest))
                continue
            }
            switch read(file, display: "\(displayRoot)/\(file.relativePath)") {
            case .success(let bytes):
                let digest = SHA256.digest(bytes)
                digests[file.path] = digest
                let content: OutputFile.Content = published[path]?.sha256 == digest ? .carried : .bytes(bytes)
                files.append(OutputFile(path: path, content: content, inputDigest: digest))
            case .failure(let diagnostic):
                diagnostics.append(diagnostic)
            }
        }
        return (files, digests)
    }
}
