/// Which way a locale's text runs: published per page (`"direction": "rtl"`) and per locale in
/// the manifest, and set as `dir` on the previews, so apps and previews lay the page out mirrored.
public enum TextDirection: String, Sendable, Hashable {
    case ltr, rtl

    /// Languages written right to left (with any region: `ar-EG`, `he-IL`, `fa-IR`, `ur-PK`).
    static let rightToLeftLanguages: Set<Substring> = ["ar", "he", "fa", "ur"]
    /// Scripts written right to left, for a script subtag (`az-Arab`) that overrides the language.
    static let rightToLeftScripts: Set<Substring> = ["arab", "hebr"]

    /// The direction of a BCP 47 code: a script subtag (four letters) decides, else the language.
    public init(locale: String) {
        // A bare lower-case language code (`en`, `fr`), as most sites write theirs: the language
        // decides, as below, without splitting and lower-casing (once per page and locale).
        if !locale.isEmpty, locale.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }) {
            self = Self.rightToLeftLanguages.contains(Substring(locale)) ? .rtl : .ltr
            return
        }
        let parts = locale.split(separator: "-")
        if let script = parts.dropFirst().first(where: { $0.count == 4 && $0.allSatisfy(\.isLetter) }) {
            self = Self.rightToLeftScripts.contains(Substring(script.lowercased())) ? .rtl : .ltr
        } else {
            self = parts.first.map { Self.rightToLeftLanguages.contains(Substring($0.lowercased())) } == true ? .rtl : .ltr
        }
    }
}
