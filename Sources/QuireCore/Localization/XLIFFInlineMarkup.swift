/// How XLIFF inline markup inside `<source>`/`<target>` maps back to the markdown it stands for.
///
/// The mapping (anything else is an error naming the element, never dropped):
///
/// | XLIFF | markdown |
/// |---|---|
/// | 1.2 `<g ctype="bold">` (`x-bold`), 2.0 `<pc subType="xlf:b">` | `**…**` |
/// | 1.2 `<g ctype="italic">` (`x-italic`), 2.0 `<pc subType="xlf:i">` | `*…*` |
/// | 1.2 `<g ctype="link" href="URL">` (`x-link`, any `href` attribute), 2.0 `<pc type="link" href>` | `[…](URL)` |
/// | 2.0 `<pc>` with `dataRefStart`/`dataRefEnd`, else `equivStart`/`equivEnd` | the original data, else the equivalents |
/// | 1.2 `<ph>`, `<bpt>`, `<ept>`, `<it>` | their content, the original code (`equiv-text` when empty) |
/// | 1.2 `<x/>`, `<bx/>`, `<ex/>` | `equiv-text` |
/// | 2.0 `<ph/>`, `<sc/>`, `<ec/>` | the `<originalData>` of `dataRef`, else `equiv`, else `disp` |
/// | 2.0 `<cp hex="…"/>` | that character |
/// | `<mrk>` (both), 2.0 `<sm/>`/`<em/>` | annotations: their content, no markup |
///
/// Quire's own export (`XLIFFInlineCodes`) writes 1.2 `<ph>`/`<bpt>`/`<ept>` with their original
/// code and 2.0 `<ph>`/`<pc>` with original data, so its files read back exactly.
enum XLIFFInlineMarkup {
    /// What an inline element opening contributes.
    struct Opening {
        /// Text written where the element starts.
        var prefix: String
        /// Text written where it ends.
        var suffix: String
        /// The element's content is native code copied verbatim (1.2 `<ph>`, `<bpt>`, ...).
        var contentIsCode: Bool = false
        /// Used instead of the content when the code element is empty.
        var emptyFallback: String? = nil
    }

    enum Version { case v1, v2 }

    /// Maps the start of an inline element, or returns why it cannot be mapped.
    static func open(
        _ name: String, attributes: [String: String], version: Version, originalData: [String: String]
    ) -> Result<Opening, InlineMarkupError> {
        let shown = describe(name, attributes)
        switch (version, name) {
        case (.v1, "g"):
            return formatting(kind: attributes["ctype"] ?? "", attributes: attributes, shown: shown)
        case (.v1, "x"), (.v1, "bx"), (.v1, "ex"):
            guard let text = attributes["equiv-text"] else { return .failure(.needsEquivalent(shown, "equiv-text")) }
            return .success(Opening(prefix: text, suffix: ""))
        case (.v1, "ph"), (.v1, "bpt"), (.v1, "ept"), (.v1, "it"):
            return .success(Opening(prefix: "", suffix: "", contentIsCode: true, emptyFallback: attributes["equiv-text"]))
        case (.v1, "mrk"), (.v2, "mrk"), (.v2, "sm"), (.v2, "em"):
            return .success(Opening(prefix: "", suffix: ""))
        case (.v2, "ph"), (.v2, "sc"), (.v2, "ec"):
            if let reference = attributes["dataRef"] {
                guard let data = originalData[reference] else { return .failure(.missingData(shown, reference)) }
                return .success(Opening(prefix: data, suffix: ""))
            }
            if let text = attributes["equiv"] ?? attributes["disp"] { return .success(Opening(prefix: text, suffix: "")) }
            return .failure(.needsEquivalent(shown, "dataRef, equiv or disp"))
        case (.v2, "pc"):
            let kind = attributes["subType"] ?? attributes["type"] ?? ""
            if case .success(let opening) = formatting(kind: kind, attributes: attributes, shown: shown) { return .success(opening) }
            if let start = attributes["dataRefStart"] {
                guard let startData = originalData[start] else { return .failure(.missingData(shown, start)) }
                let end = attributes["dataRefEnd"]
                guard let endData = end.map({ originalData[$0] }) ?? "" else { return .failure(.missingData(shown, end ?? "")) }
                return .success(Opening(prefix: startData, suffix: endData))
            }
            if let start = attributes["equivStart"] {
                return .success(Opening(prefix: start, suffix: attributes["equivEnd"] ?? ""))
            }
            return .failure(.unmappable(shown))
        case (.v2, "cp"):
            guard let hex = attributes["hex"], let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else {
                return .failure(.unmappable(shown))
            }
            return .success(Opening(prefix: String(Character(scalar)), suffix: ""))
        default:
            return .failure(.unmappable(shown))
        }
    }

    private static func formatting(kind: String, attributes: [String: String], shown: String) -> Result<Opening, InlineMarkupError> {
        switch kind {
        case "bold", "x-bold", "xlf:b": return .success(Opening(prefix: "**", suffix: "**"))
        case "italic", "x-italic", "xlf:i": return .success(Opening(prefix: "*", suffix: "*"))
        case "link", "x-link", "x-html-a":
            guard let target = attributes.first(where: { $0.key == "href" || $0.key.hasSuffix(":href") })?.value else {
                return .failure(.needsEquivalent(shown, "href"))
            }
            return .success(Opening(prefix: "[", suffix: "](\(target))"))
        default: return .failure(.unmappable(shown))
        }
    }

    /// `<g ctype="underlined">`, as messages quote an element (only the attributes that decide).
    static func describe(_ name: String, _ attributes: [String: String]) -> String {
        let deciding = ["ctype", "type", "subType"].compactMap { key in attributes[key].map { "\(key)=\"\($0)\"" } }
        return "<" + ([name] + deciding).joined(separator: " ") + ">"
    }
}

enum InlineMarkupError: Error, Equatable {
    case unmappable(String)
    case needsEquivalent(String, String)
    case missingData(String, String)

    var message: String {
        switch self {
        case .unmappable(let element):
            return "inline markup \(element) has no markdown equivalent; use bold, italic, a link or a placeholder, or remove it"
        case .needsEquivalent(let element, let attribute):
            return "inline markup \(element) carries no text (\(attribute)); give it one or remove it"
        case .missingData(let element, let reference):
            return "inline markup \(element) refers to original data \"\(reference)\" that the unit does not define"
        }
    }
}
