import Foundation
import QuireCore
import QuireModel

@testable import QuireDashboard

// libFuzzer target: the dashboard's editing requests, in process (no socket), against a copy of
// the sample site `pages/trex`. The first byte picks what the rest is:
//   0: a whole SCGI request as nginx sends it (netstring headers, then the body), read by
//      `SCGIParser` in pieces whose sizes come from the input, then answered by the service;
//   1: the JSON body of a page save (`PUT /api/sites/trex/pages/trex-store`, authorized): the
//      body's parse, the form document written as YAML (`YAMLWriter`), the stale-base check;
//   2: the JSON body of a draft check (`POST /api/sites/trex/check`, authorized): the real
//      pipeline on the draft, in memory;
//   3: the JSON body of a translation save (`PUT /api/sites/trex/l10n/fr/pages/trex-store`) or,
//      with bit 2 set, of a translation preview (`POST .../l10n/fr/check/trex-store`), authorized.
// A save is accepted only when its "base" is the sha256 of the file as it was (libFuzzer learns
// it from the service's comparison, so some inputs name it): an accepted save naming anything
// else is a finding, and the copy is put back after one. Otherwise a changed site file is a
// finding (checked on every input against the copy's snapshot).

private let pagesRoot: String = {
    let root = NSTemporaryDirectory() + "quire-fuzz-dashboard-\(getpid())"
    try? FileManager.default.removeItem(atPath: root)
    try! FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    try! FileManager.default.copyItem(atPath: FileManager.default.currentDirectoryPath + "/pages/trex", toPath: root + "/trex")
    atexit { try? FileManager.default.removeItem(atPath: pagesRoot) }
    return root
}()

private let service = DashboardService(pagesRoot: pagesRoot, sites: { ["trex"] })
private let snapshot = siteFiles()
/// The bases a save may name: each file's sha256, and that of no file (a translation file a save creates).
private let snapshotBases = Set(snapshot.values.compactMap { $0.map { SHA256.hash(Array($0)) } } + [SHA256.hash([UInt8]())])

/// Puts the copy back as the snapshot holds it, after an accepted save.
private func restoreSnapshot() {
    // Files and folders the save made, the deepest first.
    for name in siteFiles().keys.filter({ snapshot[$0] == nil }).sorted(by: { $0.count > $1.count }) {
        try? FileManager.default.removeItem(atPath: pagesRoot + name)
    }
    for case let (name, bytes?) in snapshot where (try? SourceFileReader().read(pagesRoot + name)).map({ Data($0) }) != bytes {
        guard FileManager.default.createFile(atPath: pagesRoot + name, contents: bytes) else {
            fatalError("cannot put \(name) back")
        }
    }
}

/// Every file and folder under the copy, by path from it ("/trex/site.yaml"), with a file's
/// bytes (a folder's: nil). Walked with readdir: this runs on every input, and Foundation's
/// directory enumerator was half of each input's time. The bytes are `Data`, whose comparison
/// is a memcmp: an array's, compiled into this target, calls the coverage hook for every byte.
private func siteFiles() -> [String: Data?] {
    var files: [String: Data?] = [:]
    func walk(_ relative: String) {
        guard let directory = opendir(pagesRoot + relative) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ".", name != ".." else { continue }
            let path = relative + "/" + name
            if Int(entry.pointee.d_type) == DT_DIR {
                files[path] = .some(nil)
                walk(path)
            } else {
                files[path] = Data((try? SourceFileReader().read(pagesRoot + path)) ?? [])
            }
        }
    }
    walk("")
    return files
}

private let editing: [(method: String, uri: String, writes: Bool)] = [
    ("PUT", "/api/sites/trex/pages/trex-store", true), ("POST", "/api/sites/trex/check", false),
    ("PUT", "/api/sites/trex/l10n/fr/pages/trex-store", true), ("POST", "/api/sites/trex/l10n/fr/check/trex-store", false),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDashboard(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    _ = snapshot
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: count - 1))
    let mode = Int(data[0] & 3)
    let response: HTTPResponse
    if mode == 0 {
        guard let request = readSCGI(bytes, pieces: data[0] >> 2) else { return 0 }
        // The event stream holds its connection open: not a request/answer route.
        if request.path.hasPrefix("/api/events") { return 0 }
        _ = request.query
        response = service.handle(request)
    } else {
        let (method, uri, writes) = editing[mode == 3 && data[0] & 4 != 0 ? 3 : mode - 1]
        let parameters = [
            "REQUEST_METHOD": method, "REQUEST_URI": uri, "HTTP_HOST": "127.0.0.1:8081", "REQUEST_SCHEME": "http",
            "CONTENT_LENGTH": String(bytes.count), "SCGI": "1", "HTTP_X_QUIRE_TOKEN": service.token, "HTTP_ORIGIN": "http://127.0.0.1:8081",
        ]
        response = service.handle(SCGIRequest(parameters: parameters, body: bytes))
        if writes, response.status.code / 100 == 2 {
            let body = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
            // The service reads a base's hex digits in either case.
            guard let base = body?["base"] as? String, snapshotBases.contains(base.lowercased()) else {
                fatalError("a save whose base is no file's was accepted: \(response.status.code)")
            }
            restoreSnapshot()
            return 0
        }
    }
    if response.status.code >= 500, response.status.code != 503 {
        fatalError("the service failed on a request: \(response.status.code) \(String(decoding: response.body.prefix(300), as: UTF8.self))")
    }
    if siteFiles() != snapshot { fatalError("a refused request changed the site") }
    return 0
}

/// The SCGI parser reading `bytes` the way a socket gives them: in pieces of 1 to 16 bytes
/// (`pieces` = 0: all at once).
private func readSCGI(_ bytes: [UInt8], pieces: UInt8) -> SCGIRequest? {
    var offset = 0
    let parser = SCGIParser(limits: SCGIParser.Limits())
    return try? parser.read { (wanted: Int) throws(SCGIError) -> [UInt8] in
        let size = pieces == 0 ? wanted : min(wanted, Int(pieces % 16) + 1)
        let end = min(bytes.count, offset + size)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }
}
