/// Bounds on what a source may hold, so hostile input costs a diagnostic, not a slow-down or a
/// crash. Defaults are generous for hand-written pages; `site.yaml` may change them (`limits:`).
public struct SourceLimits: Sendable, Hashable {
    public var maxFileBytes: Int = 4 * 1024 * 1024
    public var maxDepth: Int = 64
    public var maxSections: Int = 500
    public var maxStringBytes: Int = 256 * 1024

    public init() {}

    public static let `default` = SourceLimits()
}
