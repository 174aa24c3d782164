import QuireCommandLine

/// Options several commands take, written once so their help reads the same everywhere.
extension OptionSpec {
    static let pages = OptionSpec(.pages, "DIR", default: "pages", help: "the pages folder, one folder per site")
    static let dist = OptionSpec(.dist, "DIR", default: "dist", help: "the published folder, one folder per site")
    static let everySite = OptionSpec(.site, "NAME", absent: .meaning("every site"), help: "only this site")
    static let oneSite = OptionSpec(.site, "NAME", absent: .required, help: "the site")
    static let format = OptionSpec(.format, "text|json", default: "text", help: "text for people, or one JSON document on stdout")
    static let noPreview = OptionSpec.flag(.noPreview, help: "skip the HTML previews of pages")
    static let timings = OptionSpec.flag(.timings, help: "print each build's time per stage (scan, read, parse, ..., publish)")
    static let reason = OptionSpec(.reason, "TEXT", absent: .meaning("none"), help: "why, written to the site's history")
    /// The replicas a site's site.yaml names are pushed to after the operation.
    static let pagesForReplicas = OptionSpec(
        .pages, "DIR", default: "pages", help: "the pages folder, whose site.yaml names the replicas to push to")

    /// How long to wait for another publish or operation on the same site to let go of its lock.
    static func lockTimeout(_ seconds: Int) -> OptionSpec {
        OptionSpec(.lockTimeout, "SECONDS", unit: "seconds", default: "\(seconds)", help: "wait this long for the site's lock")
    }
}

extension OptionName {
    static let reason = OptionName("reason")
}

extension FlagName {
    static let timings = FlagName("timings")
}
