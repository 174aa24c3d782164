/// How a build changed a page against the newest version: the one rule of both planners, for
/// `build.json`'s `changes` and the build's added and removed pages. A page is served by its
/// page files (not by its previews or a draft's parts).
enum PageChange: Sendable {
    case added, changed, removed

    /// `wasServed`: the newest version has a file serving the page; `isServed`: the new one has;
    /// `rewroteServedFile`: the build wrote one of those files anew. Nil: unchanged.
    init?(wasServed: Bool, isServed: Bool, rewroteServedFile: Bool) {
        switch (wasServed, isServed) {
        case (false, true): self = .added
        case (true, false): self = .removed
        case (true, true) where rewroteServedFile: self = .changed
        default: return nil
        }
    }
}
