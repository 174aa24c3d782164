/// How a URL from page content may appear in a preview. Previews make no request that leaves
/// the server: images load only from the version's own assets, links open only on a click.
enum PreviewURL {
    enum Image: Equatable {
        /// A site path (`/assets/x.jpg`), rewritten to be relative to the preview file.
        case local(String)
        /// `https://` or `http://`: never loaded, drawn as a labelled placeholder.
        case remote(host: String)
        case invalid
    }

    /// Where an image field may be loaded from, given the prefix that reaches the version folder.
    static func image(_ url: String, assetBase: String) -> Image {
        guard isClean(url) else { return .invalid }
        if url.hasPrefix("/") && !url.hasPrefix("//") {
            return .local(assetBase + url.dropFirst())
        }
        guard let scheme = URLPolicy.scheme(of: url), scheme == "https" || scheme == "http" else { return .invalid }
        return .remote(host: host(of: url) ?? url)
    }

    /// A link target, or nil when it must not become an `href`: only `https:`, `http:` and
    /// relative URLs (a site path, a path next to this file, a fragment) pass.
    static func link(_ url: String) -> String? {
        guard isClean(url), !url.hasPrefix("//") else { return nil }
        guard let scheme = URLPolicy.scheme(of: url) else { return url }
        return scheme == "https" || scheme == "http" ? url : nil
    }

    /// `example.com` of `https://example.com/x`.
    static func host(of url: String) -> String? {
        // ASCII URLs (nearly all) are searched on bytes, in place: Foundation's `range(of:)` is
        // slow on Linux, and in ASCII (whose only multi-scalar character, CR LF, holds none of
        // `:/?#`) bytes and characters agree.
        let onBytes = url.utf8.withContiguousStorageIfAvailable { bytes -> String?? in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            return .some(asciiHost(bytes))
        }
        if let onBytes = onBytes ?? nil { return onBytes }
        if url.utf8.allSatisfy({ $0 < 0x80 }) {
            return Array(url.utf8).withUnsafeBufferPointer { asciiHost($0) }
        }
        guard let range = url.range(of: "://") else { return nil }
        let rest = url[range.upperBound...]
        let host = rest.prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" })
        return host.isEmpty ? nil : String(host)
    }

    private static func asciiHost(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard
            let separator = bytes.indices.first(where: {
                $0 + 3 <= bytes.count && bytes[$0] == UInt8(ascii: ":") && bytes[$0 + 1] == UInt8(ascii: "/")
                    && bytes[$0 + 2] == UInt8(ascii: "/")
            })
        else { return nil }
        let rest = bytes[(separator + 3)...]
        let host = rest.prefix(while: { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") })
        return host.isEmpty ? nil : String(decoding: host, as: UTF8.self)
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
