import Foundation
import Glibc
import QuireCore
import QuireModel

// `GET` and `POST /api/sites/{site}/assets`: the site's images, and uploads typed from their bytes.
extension DashboardService {
    func assetList(_ site: String) throws(DashboardError) -> HTTPResponse {
        let folder = try folder(site)
        var assets: [JSONValue] = []
        for name in draftSite(site).assets {
            var info = stat()
            let path = folder.root + "/assets/" + name
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            let head = Self.head(path)
            assets.append(
                .object(
                    JSONObject([
                        ("path", .string("/assets/" + name)), ("size", .integer(Int(info.st_size))),
                        ("type", MediaType.of(head).map { .string($0.mime) } ?? .null),
                    ])))
        }
        return .json(.array(assets))
    }

    /// `?name=<file name>`, the body the file's bytes.
    func uploadAsset(_ site: String, _ request: SCGIRequest) throws(DashboardError) -> HTTPResponse {
        let folder = try folder(site)
        guard let name = request.query["name"] else { throw .badRequest("an upload needs ?name=<file name>, like banner.jpg") }
        let (stem, pathExtension) = Self.splitName(name)
        guard Identifier.isValid(stem), !pathExtension.isEmpty, pathExtension.utf8.allSatisfy({ (97...122).contains($0) }) else {
            throw .badRequest("'\(name.prefix(80))' is not a valid asset name: [a-z0-9_-] then an extension, like banner.jpg")
        }
        let bytes = request.body
        guard !bytes.isEmpty else { throw .badRequest("the upload is empty") }
        guard bytes.count <= maxAssetBytes else {
            throw DashboardError(.payloadTooLarge, "the image is \(bytes.count) bytes, over the limit of \(maxAssetBytes)")
        }
        let type: MediaType
        switch UploadTypes.type(of: bytes) {
        case .success(let found): type = found
        case .failure(let error): throw error
        }
        guard type.extensions.contains(pathExtension) else {
            throw .badRequest("the bytes are \(type.mime): name the file .\(type.extensions[0]), not .\(pathExtension)")
        }
        let relative = "assets/" + stem + "." + pathExtension
        try folder.makeFolders(of: relative)
        _ = try save(site, relative, request) { () throws(DashboardError) in try AtomicFile.create(bytes, at: folder.root + "/" + relative)
        }
        forgetDraftSite(site)
        return .json(.object(JSONObject([("path", .string("/" + relative)), ("type", .string(type.mime))])), status: .created)
    }

    /// The first bytes of a file (what tells its type), never through a link.
    private static func head(_ path: String) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        return Array(bytes.prefix(max(count, 0)))
    }

    private static func splitName(_ name: String) -> (stem: String, pathExtension: String) {
        guard let dot = name.lastIndex(of: ".") else { return (name, "") }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }
}
