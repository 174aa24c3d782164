import Foundation
import QuireModel

@testable import QuireCore

// libFuzzer target: any bytes as a translation file given to `quire l10n import` (and the
// dashboard's upload), through `SiteTranslations.importFile` against the sample site
// `pages/trex`, without writing. The first byte picks the extension (bit 0: .xlf or .po), the
// locale asked for (bits 1-2), `--replace` (bit 3) and the file's name (bit 4: which page).
// A PO file goes to a parser child as in `quire` (one child parses input after input): this
// binary answers `__parse-po` itself (LLVMFuzzerInitialize), so the child is the product's own
// code. The child's coverage does not reach the fuzzer (it is another process); its crashes do,
// as a parser that stopped without a result, which is checked here.

private let site: SiteTranslations = {
    let pagesRoot = FileManager.default.currentDirectoryPath + "/pages"
    guard let loaded = try? SiteTranslations.load(site: "trex", pagesRoot: pagesRoot) else {
        fatalError("run from the repository root: pages/trex must load")
    }
    return loaded
}()

private let folder: String = {
    let path = NSTemporaryDirectory() + "quire-fuzz-import-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    atexit { rmdir(folder) }
    return path
}()

@_cdecl("LLVMFuzzerInitialize")
public func fuzzImportInitialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>
) -> CInt {
    POFileParser.runChildIfAsked((0..<Int(argc.pointee)).compactMap { argv.pointee[$0].map { String(cString: $0) } })
    _ = site
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImport(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let selector = data[0]
    let isPO = selector & 1 == 1
    let locale: String? = [nil, "fr", "de", "fr-CA"][Int(selector >> 1 & 3)]
    let replace = selector & 8 != 0
    let name = selector & 16 == 0 ? "trex-store" : "range-safety"
    let path = "\(folder)/\(name).\(isPO ? "po" : "xlf")"
    // A plain write: FileManager's createFile writes atomically, with an fsync per input.
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0, write(descriptor, data + 1, count - 1) == count - 1, close(descriptor) == 0 else {
        fatalError("cannot write \(path)")
    }
    defer { unlink(path) }
    let result = site.importFile(path, locale: locale, replace: replace, write: false)
    if isPO,
        let stopped = result.diagnostics.first(where: {
            $0.message.contains("the PO parser stopped") || $0.message.contains("cannot start the PO parser")
        })
    {
        fatalError("the PO parser child failed: \(stopped.message)")
    }
    if !result.hasErrors, result.entries > 0, result.destination == nil {
        fatalError("an import without errors names no destination")
    }
    return 0
}
