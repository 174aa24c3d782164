/// How a URL from content may appear in the status page: the preview script applies the same
/// rules to the pages it draws (`PreviewPageScript`).
enum PreviewURL {
    /// A link target, or nil when it must not become an `href`: only `https:`, `http:` and
    /// relative URLs (a site path, a path next to this file, a fragment) pass.
    static func link(_ url: String) -> String? {
        guard isClean(url), !url.hasPrefix("//") else { return nil }
        guard let scheme = URLPolicy.scheme(of: url) else { return url }
        return scheme == "https" || scheme == "http" ? url : nil
    }

    /// No spaces around, no control characters: they can hide a scheme from a check.
    /// Decided on UTF-8 bytes: a space or control scalar is exactly such a byte (every byte of a
    /// longer sequence is 0x80 or above), and the first / last scalar is a space exactly when
    /// the first / last byte is. `isCleanByScalars` is the long way (`FastPathTests`).
    static func isClean(_ url: String) -> Bool {
        let utf8 = url.utf8
        guard let first = utf8.first, let last = utf8.last, first != 0x20, last != 0x20 else { return false }
        return !utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
    }

    static func isCleanByScalars(_ url: String) -> Bool {
        guard let first = url.unicodeScalars.first, let last = url.unicodeScalars.last else { return false }
        return first != " " && last != " "
            && !url.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
    }
}
