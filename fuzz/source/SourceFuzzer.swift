@testable import QuireCore
import QuireModel

// libFuzzer target: any bytes through the source loader and the validator, as a page, as
// site.yaml and as a vocabulary file. The first byte picks the format. A crash, a hang or a
// sanitizer report is a finding; a diagnostic is the expected answer to bad input.

private let context = ValidationContext(
    config: SiteConfig(name: "fuzz"), vocabulary: .builtIn,
    pageIDs: ["home", "guides/range-safety"], assets: ["banner.jpg"])

private var smallLimits: SourceLimits {
    var limits = SourceLimits()
    limits.maxDepth = 32
    limits.maxStringBytes = 4096
    limits.maxSections = 50
    return limits
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSource(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let format: SourceFormat = data[0] & 1 == 0 ? .json : .yaml
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: count - 1))
    let limits = data[0] & 2 == 0 ? SourceLimits.default : smallLimits
    guard let root = try? SourceParser.parse(bytes, format: format, file: "fuzz", limits: limits) else { return 0 }
    _ = PageValidator.validate(root, pageID: "home", file: "fuzz", context: context)
    _ = SiteConfig.read(root, site: "fuzz", file: "site.yaml")
    _ = SiteVocabulary.read(root, file: "vocabulary.yaml")
    return 0
}
