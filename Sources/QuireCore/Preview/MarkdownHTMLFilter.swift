import QuireModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Re-emits the markdown stage's HTML (cmark, safe mode) for a preview. cmark's output is
/// already safe; this pass is a second fence and does what the preview needs on top:
/// - only the tags and attributes cmark produces survive; anything else is dropped,
/// - `href`s pass only when `https:`, `http:`, `mailto:`, `tel:` or relative,
/// - images from site paths are rewritten against `assetBase`; remote images become a
///   placeholder, so the preview makes no request that leaves the server.
struct MarkdownHTMLFilter {
    var assetBase: String

    static let allowedTags: Set<String> = [
        "p", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "a", "img", "ul", "ol", "li",
        "blockquote", "pre", "code", "hr", "br", "del", "s", "sup", "sub",
        "table", "thead", "tbody", "tr", "th", "td",
    ]
    /// Elements whose content is not text to show either (`<script>`, `<style>`, ...).
    static let droppedWithContent: Set<String> = [
        "script", "style", "iframe", "object", "embed", "template", "textarea", "title", "noscript", "xmp", "svg", "math",
    ]
    private static let allowedAttributes: [String: Set<String>] = [
        "a": ["href", "title"], "img": ["src", "alt", "title"], "ol": ["start"], "code": ["class"],
        "th": ["align"], "td": ["align"],
    ]

    /// The tag names above as `TagName`s: a tag is looked up by comparing integers, not by
    /// hashing a string made for it.
    /// `allowedTags`, the most frequent in cmark's output first, so most lookups end after a
    /// comparison or two (`FastPathTests` checks that both lists hold the same names).
    static let allowedTagNames = [
        "p", "em", "strong", "a", "li", "code", "ul", "ol", "h3", "h2", "h1", "h4", "h5", "h6", "br", "pre", "blockquote",
        "hr", "img", "del", "s", "sup", "sub", "table", "thead", "tbody", "tr", "th", "td",
    ].map(TagName.init)
    private static let droppedWithContentNames = droppedWithContent.map(TagName.init)

    /// A tag name in lower case, packed into an integer (names are ASCII letters and digits; no
    /// name of the sets above is longer than 16 bytes, so a longer one is none of them).
    struct TagName: Equatable {
        static let tooLong = TagName(packed: 0, count: 0)
        var packed: UInt128
        var count: Int

        init(packed: UInt128, count: Int) {
            self.packed = packed
            self.count = count
        }

        init(_ name: String) {
            var packed: UInt128 = 0
            var count = 0
            for byte in name.utf8.prefix(16) {
                packed |= UInt128(byte) << (8 * count)
                count += 1
            }
            self.init(packed: name.utf8.count <= 16 ? packed : 0, count: name.utf8.count <= 16 ? count : 0)
        }

        /// The name of `bytes` (ASCII), lower-cased; `.tooLong` when longer than 16 bytes.
        init(lowercasing bytes: Slice<UnsafeBufferPointer<UInt8>>) {
            guard bytes.count <= 16 else {
                self = .tooLong
                return
            }
            var packed: UInt128 = 0
            var shift = 0
            for byte in bytes {
                let lower = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                packed |= UInt128(lower) << shift
                shift += 8
            }
            self.init(packed: packed, count: bytes.count)
        }

        func append(to out: inout ByteSink) {
            withUnsafeBytes(of: packed.littleEndian) {
                out.append(UnsafeBufferPointer(rebasing: $0.assumingMemoryBound(to: UInt8.self).prefix(count)))
            }
        }

        var string: String {
            withUnsafeBytes(of: packed.littleEndian) { String(decoding: $0.prefix(count), as: UTF8.self) }
        }
    }

    private struct Tag {
        /// Lower case; `.tooLong` when too long to be a name this filter knows.
        var name: TagName
        var isClosing: Bool
        /// Where the attributes begin (right after the name), read by `attributes(of:in:)`.
        var attributesStart: Int
        var attributeCount: Int
        var end: Int
    }

    private static func attributes(of tag: Tag, in bytes: UnsafeBufferPointer<UInt8>) -> [(name: String, value: String)] {
        var attributes: [(name: String, value: String)] = []
        attributes.reserveCapacity(tag.attributeCount)
        _ = scanAttributes(bytes, from: tag.attributesStart, collecting: true, into: &attributes)
        return attributes
    }

    private static let img = TagName("img"), br = TagName("br"), hr = TagName("hr"), a = TagName("a")

    func filter(_ html: String) -> String {
        var out = ByteSink(capacity: html.utf8.count + 64)
        filter(html, into: &out)
        return String(decoding: out.array(), as: UTF8.self)
    }

    /// Appends the filtered HTML to `out`, as UTF-8.
    func filter(_ html: String, into out: inout ByteSink) {
        var html = html
        html.withUTF8 { filter($0, into: &out) }
    }

    private func filter(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout ByteSink) {
        var index = 0
        var textStart = 0
        while index < bytes.count {
            // Text runs between tags are most of the HTML: memchr finds the next tag.
            guard bytes[index] == UInt8(ascii: "<") else {
                index = Self.nextTag(in: bytes, from: index)
                continue
            }
            if textStart < index { Self.escapeText(bytes[textStart..<index], into: &out) }
            if Self.hasPrefix(bytes, "<!--", at: index) {
                // cmark leaves `<!-- raw HTML omitted -->` where it dropped markup.
                index = Self.find(bytes, "-->", from: index + 4).map { $0 + 3 } ?? bytes.count
            } else if let tag = Self.parseTag(bytes, at: index) {
                let isAllowed = render(tag, in: bytes, into: &out)
                index = tag.end
                // The two sets share no name: a tag that is allowed is not dropped with its content.
                if !isAllowed && !tag.isClosing && tag.name != .tooLong && Self.droppedWithContentNames.contains(tag.name) {
                    index = Self.endOfElement(tag.name.string, in: bytes, from: index)
                }
            } else {
                out.append("&lt;" as StaticString)
                index += 1
            }
            textStart = index
        }
        if textStart < bytes.count { Self.escapeText(bytes[textStart..<bytes.count], into: &out) }
    }

    /// Writes `tag` if it is an allowed one; returns whether it is.
    @discardableResult
    private func render(_ tag: Tag, in bytes: UnsafeBufferPointer<UInt8>, into out: inout ByteSink) -> Bool {
        guard tag.name != .tooLong, Self.allowedTagNames.contains(tag.name) else { return false }
        renderAllowed(tag, in: bytes, into: &out)
        return true
    }

    private func renderAllowed(_ tag: Tag, in bytes: UnsafeBufferPointer<UInt8>, into out: inout ByteSink) {
        if tag.isClosing {
            guard tag.name != Self.img && tag.name != Self.br && tag.name != Self.hr else { return }
            out.append("</" as StaticString)
            tag.name.append(to: &out)
            out.append(UInt8(ascii: ">"))
            return
        }
        var attributes: [(String, String)] = []
        if tag.attributeCount > 0 {
            let allowed = Self.allowedAttributes[tag.name.string] ?? []
            for (name, rawValue) in Self.attributes(of: tag, in: bytes) where allowed.contains(name) {
                guard let value = Self.decodeEntities(rawValue) else { continue }
                switch name {
                case "href":
                    guard let link = PreviewURL.link(value) ?? Self.mailOrPhone(value) else { continue }
                    attributes.append((name, link))
                case "src":
                    switch PreviewURL.image(value, assetBase: assetBase) {
                    case .local(let path): attributes.append((name, path))
                    case .remote(let host): return Self.placeholder("remote image · \(host)", into: &out)
                    case .invalid: return Self.placeholder("image not shown", into: &out)
                    }
                default:
                    attributes.append((name, value))
                }
            }
        }
        if tag.name == Self.img && !attributes.contains(where: { $0.0 == "src" }) { return Self.placeholder("image not shown", into: &out) }
        out.append(UInt8(ascii: "<"))
        tag.name.append(to: &out)
        for (name, value) in attributes {
            out.append(UInt8(ascii: " "))
            out.append(name)
            out.append("=\"" as StaticString)
            HTMLWriter.appendEscaped(value, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        if tag.name == Self.a, attributes.contains(where: { $0.0 == "href" }) { out.append(" rel=\"noopener noreferrer\"" as StaticString) }
        out.append(UInt8(ascii: ">"))
    }

    private static func mailOrPhone(_ url: String) -> String? {
        let scheme = URLPolicy.scheme(of: url)
        return scheme == "mailto" || scheme == "tel" ? url : nil
    }

    private static func placeholder(_ label: String, into out: inout ByteSink) {
        out.append("<span class=\"remote-image\">" as StaticString)
        HTMLWriter.appendEscaped(label, to: &out)
        out.append("</span>" as StaticString)
    }

    /// Text between tags: entities cmark wrote pass through, any other `&` or `>` is escaped.
    static func escapeText(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, into out: inout ByteSink) {
        var runStart = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            // Eight bytes at a time up to the next `&` or `>`: most text has neither.
            if let base = bytes.base.baseAddress {
                while index + 8 <= bytes.endIndex {
                    let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                    let mask = ampersandOrGreaterMask(word)
                    if mask != 0 {
                        index += mask.trailingZeroBitCount / 8
                        break
                    }
                    index += 8
                }
                guard index < bytes.endIndex else { break }
            }
            let byte = bytes[index]
            let replacement: StaticString
            if byte == UInt8(ascii: "&") {
                guard entityLength(bytes, at: index) == nil else {
                    index += 1
                    continue
                }
                replacement = "&amp;"
            } else if byte == UInt8(ascii: ">") {
                replacement = "&gt;"
            } else {
                index += 1
                continue
            }
            out.append(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            out.append(UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
            index += 1
            runStart = index
        }
        out.append(UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.endIndex]))
    }

    /// The high bit of each byte of `word` (read little-endian) set where it may be `&` or `>`
    /// ("has zero byte" from Bit Twiddling Hacks): a borrow can flag only a byte above a true
    /// match, so the lowest flagged byte is exact and zero means neither is there.
    @inline(__always)
    static func ampersandOrGreaterMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        func zeroBytes(_ value: UInt64) -> UInt64 { (value &- ones) & ~value }
        return (zeroBytes(word ^ (ones &* 0x26)) | zeroBytes(word ^ (ones &* 0x3E))) & 0x8080_8080_8080_8080
    }

    /// Length of `&name;`, `&#123;` or `&#x1F;` at `index`, or nil when there is none.
    static func entityLength(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, at index: Int) -> Int? {
        var end = index + 1
        while end < bytes.endIndex, end - index <= 32 {
            let byte = bytes[end]
            if byte == UInt8(ascii: ";") { return end > index + 1 ? end - index + 1 : nil }
            let isNameByte =
                (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                || (byte == UInt8(ascii: "#") && end == index + 1)
            if !isNameByte { return nil }
            end += 1
        }
        return nil
    }

    /// An attribute value with the entities cmark writes decoded, or nil when it holds one we
    /// do not know (a browser would decode `&colon;` and could reveal a scheme).
    static func decodeEntities(_ value: String) -> String? {
        // A byte check (Foundation's `contains` is slow on Linux); an `&` that is part of a
        // larger character is not matched below either, and the value comes back unchanged.
        guard UTF8Scan.contains(value, byte: UInt8(ascii: "&")) else { return value }
        var out = ""
        var rest = Substring(value)
        while let ampersand = rest.firstIndex(of: "&") {
            out += rest[..<ampersand]
            guard let semicolon = rest[ampersand...].firstIndex(of: ";") else { return nil }
            let name = rest[rest.index(after: ampersand)..<semicolon]
            switch name {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let number: UInt32?
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    number = UInt32(name.dropFirst(2), radix: 16)
                } else if name.hasPrefix("#") {
                    number = UInt32(name.dropFirst())
                } else {
                    number = nil
                }
                guard let number, let scalar = Unicode.Scalar(number) else { return nil }
                out.unicodeScalars.append(scalar)
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return out + rest
    }

    // MARK: Tag scanning

    /// The index of the next `<` at or after `start`, or the end of `bytes`.
    private static func nextTag(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress, start < bytes.count,
            let found = memchr(base + start, Int32(UInt8(ascii: "<")), bytes.count - start)
        else { return bytes.count }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    private static func parseTag(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Tag? {
        var index = start + 1
        var isClosing = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "/") {
            isClosing = true
            index += 1
        }
        let nameStart = index
        while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
        guard index > nameStart, isLetter(bytes[nameStart]) else { return nil }
        let name = TagName(lowercasing: bytes[nameStart..<index])
        // Attributes are only found here; they are read (strings made) once the tag is kept.
        var none: [(name: String, value: String)] = []
        guard let (end, count) = scanAttributes(bytes, from: index, collecting: false, into: &none) else { return nil }
        return Tag(name: name, isClosing: isClosing, attributesStart: index, attributeCount: count, end: end)
    }

    /// The attributes of the tag whose name ends at `start`: where the tag ends and how many it
    /// has, nil when it does not end. Appends them to `attributes` when `collecting`.
    private static func scanAttributes(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, collecting: Bool,
        into attributes: inout [(name: String, value: String)]
    ) -> (end: Int, count: Int)? {
        var index = start
        var count = 0
        while index < bytes.count {
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ">") { return (index + 1, count) }
            if bytes[index] == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ">") {
                return (index + 2, count)
            }
            let attributeStart = index
            while index < bytes.count, !isSpace(bytes[index]), !endsAttributeName(bytes[index]) { index += 1 }
            guard index > attributeStart else { return nil }
            let attributeEnd = index
            var valueRange = index..<index
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                guard index < bytes.count else { return nil }
                let quote = bytes[index]
                if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                    guard let close = bytes[(index + 1)...].firstIndex(of: quote) else { return nil }
                    valueRange = (index + 1)..<close
                    index = close + 1
                } else {
                    let valueStart = index
                    while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
                    valueRange = valueStart..<index
                }
            }
            count += 1
            if collecting {
                attributes.append((lowercased(bytes[attributeStart..<attributeEnd]), String(decoding: bytes[valueRange], as: UTF8.self)))
            }
        }
        return nil
    }

    /// A tag or attribute name in lower case. ASCII is folded on bytes (names are almost
    /// always ASCII); anything else takes `String.lowercased()`, as it always did.
    static func lowercased(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return String(decoding: bytes, as: UTF8.self).lowercased() }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (offset, byte) in bytes.enumerated() { buffer[offset] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
            return bytes.count
        }
    }

    private static func endsAttributeName(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "=") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\"")
            || byte == UInt8(ascii: "'")
    }

    /// The index after `</name ...>` (case-insensitive), or the end of the input.
    private static func endOfElement(_ name: String, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let closing = Array("</\(name)".utf8)
        var index = start
        while index + closing.count <= bytes.count {
            if zip(bytes[index..<(index + closing.count)], closing).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) {
                return find(bytes, ">", from: index).map { $0 + 1 } ?? bytes.count
            }
            index += 1
        }
        return bytes.count
    }

    private static func isLetter(_ byte: UInt8) -> Bool { byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A }
    private static func isNameByte(_ byte: UInt8) -> Bool { isLetter(byte) || (byte >= 0x30 && byte <= 0x39) }
    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C }

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString, at index: Int) -> Bool {
        let prefix = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        return index + prefix.count <= bytes.count && bytes[index..<(index + prefix.count)].elementsEqual(prefix)
    }

    private static func find(_ bytes: UnsafeBufferPointer<UInt8>, _ needle: StaticString, from start: Int) -> Int? {
        var index = start
        while index + needle.utf8CodeUnitCount <= bytes.count {
            if hasPrefix(bytes, needle, at: index) { return index }
            index += 1
        }
        return nil
    }
}
