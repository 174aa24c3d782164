import Foundation
import Glibc
import QuireModel

@testable import QuireCore

/// A fresh `dist/` in a temporary folder, removed when the test ends.
final class TemporaryDist {
    let path: String

    init() {
        var template = Array((NSTemporaryDirectory() + "quire-store-XXXXXX").utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        chmod(path, 0o755)
    }

    deinit { try? FileSystem.removeTree(path) }

    func store(_ site: String = "trex", faults: FaultPlan = .none) throws -> SiteStore {
        try SiteStore(dist: path, site: site, faults: faults)
    }
}

func page(_ path: String, _ text: String, digest: Digest = "d") -> OutputFile {
    OutputFile(path: path, content: .bytes(Array(text.utf8)), inputDigest: digest)
}

func carried(_ path: String, digest: Digest = "d") -> OutputFile {
    OutputFile(path: path, content: .carried, inputDigest: digest)
}

func request(_ files: [OutputFile], ttl: Int = 60) -> PublishRequest {
    PublishRequest(
        files: files, manifest: JSONObject([("locales", ["en", "fr"]), ("ttl", .integer(ttl))]),
        buildRecord: JSONObject([("pages", .integer(files.count))]))
}

func lstatInfo(_ path: String) -> stat? {
    var info = stat()
    return lstat(path, &info) == 0 ? info : nil
}

func readText(_ path: String) -> String? {
    guard let bytes = try? FileSystem.readFile(path) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
}

func link(_ path: String) -> String? { try? FileSystem.readLink(path) }

/// The three-folder site most tests start from.
let baseFiles = [
    page("en/trex-store.json", #"{"title":"Store"}"#),
    page("en/guides/range-safety.json", #"{"title":"Safety"}"#),
    page("fr/trex-store.json", #"{"title":"Boutique"}"#),
    page("assets/banner.jpg", "JPEGDATA"),
]
