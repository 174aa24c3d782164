@testable import QuireCore
import QuireModel

// libFuzzer target: any bytes as a translation file, through the in-process readers (XLIFF,
// YAML and JSON key-value files). PO files are parsed in a child process and are not fuzzed
// here. The first byte picks the format.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTranslations(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let formats: [TranslationFormat] = [.xliff, .yaml, .json, .xliff]
    let format = formats[Int(data[0] & 3)]
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: count - 1))
    if let (catalog, _) = try? TranslationFileReader.read(bytes, file: "fuzz", format: format) {
        _ = catalog.entries.count
    }
    return 0
}
