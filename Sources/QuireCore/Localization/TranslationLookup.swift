import Foundation

/// How one string of one page reads in one locale.
public enum TranslationState: String, Sendable {
    /// The default locale: the source text itself.
    case source
    /// A current translation in this very locale.
    case translated
    /// This locale has a translation, made from an older source text (or marked fuzzy).
    case stale
    /// This locale has none; the text comes from further along the chain.
    case missing
}

/// The translations of one page, by locale and key, checked against the page's source strings.
public struct PageTranslations: Sendable {
    /// locale -> key -> entry (only entries that passed the checks).
    var entries: [String: [String: TranslationEntry]] = [:]

    /// Reads the page's translation catalogs and checks every entry against the source strings:
    /// unknown keys, empty text, and dropped or added links and `{placeholders}`. Markdown is
    /// parsed through `markdown`, so a build that renders the page next parses each text once.
    static func check(
        _ catalogs: [(locale: String, catalog: TranslationCatalog)], strings: [LocalizableText],
        links: SiteConfig.LinkPolicy = .same, markdown: MarkdownMemo = MarkdownMemo()
    ) -> (PageTranslations, [Diagnostic]) {
        var result = PageTranslations()
        var diagnostics: [Diagnostic] = []
        // Keys are looked up once per entry: each string's first position, and what is known
        // about it, live in arrays by that position (hashing keys was most of this loop's work).
        var positions: [String: Int] = [:]
        positions.reserveCapacity(strings.count)
        // Whether a string is the first of its key: catalogs list their entries in the page's
        // order (nearly always), so the string after the last one found is tried first, by
        // comparing one key, not hashing it.
        var isFirstOfKey = [Bool](repeating: false, count: strings.count)
        for (index, string) in strings.enumerated() where positions[string.key] == nil {
            positions[string.key] = index
            isFirstOfKey[index] = true
        }
        var sourceLinks = [[String]?](repeating: nil, count: strings.count)  // once per string, not once per locale
        for (locale, catalog) in catalogs {
            let file = catalog.file
            var firstSeen = [SourcePosition?](repeating: nil, count: strings.count)
            var unknownSeen: [String: SourcePosition] = [:]
            var accepted: [String: TranslationEntry] = [:]
            accepted.reserveCapacity(catalog.entries.count)
            var next = 0
            for entry in catalog.entries {
                let index =
                    next < strings.count && isFirstOfKey[next] && strings[next].key == entry.key ? next : positions[entry.key]
                if let index { next = index + 1 }
                let first = if let index { firstSeen[index] } else { unknownSeen[entry.key] }
                if let first {
                    diagnostics.append(
                        .error(
                            file, at: entry.position, keyPath: entry.key,
                            "duplicate translation of '\(entry.key)' (first at line \(first.line))"))
                    continue
                }
                guard let index else {
                    unknownSeen[entry.key] = entry.position
                    diagnostics.append(
                        .warning(
                            file, at: entry.position, keyPath: entry.key,
                            "unknown key: the page no longer has '\(entry.key)'; this translation is not used"))
                    continue
                }
                firstSeen[index] = entry.position
                let source = strings[index]
                if entry.text.isBlank {
                    diagnostics.append(
                        .error(
                            file, at: entry.position, keyPath: entry.key,
                            "the translation is empty; remove it to fall back, or translate it"))
                    continue
                }
                // A markdown translation is parsed once (in `markdown`), for its links, for what
                // rendering would remove, and for rendering it.
                var translatedLinks: [String]?
                if source.isMarkdown {
                    if sourceLinks[index] == nil { sourceLinks[index] = markdown.links(in: source.text) }
                    translatedLinks = markdown.links(in: entry.text)
                }
                if let problem = damage(
                    source: source, translation: entry.text, links: links, sourceLinks: sourceLinks[index],
                    translatedLinks: translatedLinks)
                {
                    diagnostics.append(.error(file, at: entry.position, keyPath: entry.key, problem))
                    continue
                }
                // Raw HTML a translator added is dropped at render time like the source's: say so
                // where it was written, not only in the page's default locale.
                if source.isMarkdown {
                    for what in markdown.removed(entry.text) {
                        diagnostics.append(
                            .warning(
                                file, at: entry.position, keyPath: entry.key, "removed \(what) from this translation: apps never receive it"
                            ))
                    }
                }
                if let original = entry.sourceText, original != source.text {
                    diagnostics.append(
                        .warning(
                            file, at: entry.position, keyPath: entry.key,
                            "stale translation: the source text changed since it was translated (\(Self.change(from: original, to: source.text)))"
                        ))
                } else if entry.isFuzzy {
                    diagnostics.append(
                        .warning(file, at: entry.position, keyPath: entry.key, "translation marked for review (fuzzy): counted as stale"))
                }
                accepted[entry.key] = entry
            }
            if accepted.isEmpty { continue }
            if result.entries[locale] == nil {
                result.entries[locale] = accepted
            } else {
                // A second catalog of the same locale: its entries win, as they always did.
                result.entries[locale]?.merge(accepted) { $1 }
            }
        }
        return (result, diagnostics)
    }

    /// `was '…old…', now '…new…'`, cut around where the two first differ so long texts stay
    /// short and the difference stays visible.
    static func change(from old: String, to new: String) -> String {
        let oldLine = Array(old.replacingOccurrences(of: "\n", with: " "))
        let newLine = Array(new.replacingOccurrences(of: "\n", with: " "))
        let common = zip(oldLine, newLine).prefix { $0 == $1 }.count
        let start = common > 20 ? common - 12 : 0
        func cut(_ line: [Character]) -> String {
            let end = min(line.count, start + 40)
            return (start > 0 ? "…" : "") + String(line[min(start, line.count)..<end]) + (end < line.count ? "…" : "")
        }
        return "was '\(cut(oldLine))', now '\(cut(newLine))'"
    }

    /// A translation must keep the source's placeholders, no more and no fewer, and its links: the
    /// same ones, or with `links: .localized` as many, each a safe URL.
    static func damage(
        source: LocalizableText, translation: String, links: SiteConfig.LinkPolicy = .same,
        sourceLinks: [String]? = nil, translatedLinks: [String]? = nil
    ) -> String? {
        let sourcePlaceholders = Placeholders.find(in: source.text)
        let translatedPlaceholders = Placeholders.find(in: translation)
        if sourcePlaceholders != translatedPlaceholders {
            let missing = sourcePlaceholders.subtracting(translatedPlaceholders).sorted()
            let added = translatedPlaceholders.subtracting(sourcePlaceholders).sorted()
            var parts: [String] = []
            if !missing.isEmpty { parts.append("drops \(missing.map { "{\($0)}" }.joined(separator: ", "))") }
            if !added.isEmpty { parts.append("adds \(added.map { "{\($0)}" }.joined(separator: ", "))") }
            return "the translation \(parts.joined(separator: " and ")): keep the placeholders of the source text"
        }
        if source.isMarkdown {
            let sourceLinks = sourceLinks ?? MarkdownRenderer.links(in: source.text)
            let translatedLinks = translatedLinks ?? MarkdownRenderer.links(in: translation)
            if links == .localized {
                return localizedLinkDamage(sourceLinks: sourceLinks, translatedLinks: translatedLinks)
            }
            // The same links in the same order (nearly always) are the same links: no sorting.
            if sourceLinks != translatedLinks && sourceLinks.sorted() != translatedLinks.sorted() {
                let missing = Set(sourceLinks).subtracting(translatedLinks).sorted()
                let added = Set(translatedLinks).subtracting(sourceLinks).sorted()
                var parts: [String] = []
                if !missing.isEmpty {
                    parts.append("drops the link\(missing.count > 1 ? "s" : "") \(missing.map { "'\($0)'" }.joined(separator: ", "))")
                }
                if !added.isEmpty {
                    parts.append("adds the link\(added.count > 1 ? "s" : "") \(added.map { "'\($0)'" }.joined(separator: ", "))")
                }
                if parts.isEmpty { parts.append("changes how many times links appear") }
                return "the translation \(parts.joined(separator: " and ")): keep the links of the source text"
            }
        }
        return nil
    }

    /// Localized links: the count is kept (a dropped or added link is still an error), the
    /// targets may change but must stay links an app may follow.
    static func localizedLinkDamage(sourceLinks: [String], translatedLinks: [String]) -> String? {
        if let unsafe = translatedLinks.first(where: { !URLPolicy.isSafeMarkdownLink($0) }) {
            return "the translation links to '\(unsafe)', which is not allowed: use https:, http:, mailto:, tel: or a relative link"
        }
        guard sourceLinks.count != translatedLinks.count else { return nil }
        let what = sourceLinks.count > translatedLinks.count ? "drops" : "adds"
        let difference = abs(sourceLinks.count - translatedLinks.count)
        return "the translation \(what) \(difference) link\(difference > 1 ? "s" : "") (\(translatedLinks.count) for the source's "
            + "\(sourceLinks.count)): keep as many links as the source text, their targets may be localized"
    }

    /// The text for `string` in a locale, walking its fallback chain.
    func resolve(_ string: LocalizableText, chain: [String], defaultLocale: String, stalePolicy: SiteConfig.StalePolicy) -> (
        text: String, state: TranslationState
    ) {
        guard string.translatable, let locale = chain.first, locale != defaultLocale else { return (string.text, .source) }
        var state = TranslationState.missing
        for (index, candidate) in chain.enumerated() {
            if candidate == defaultLocale { return (string.text, index == 0 ? .source : state) }
            guard let entry = entries[candidate]?[string.key] else { continue }
            let isStale = entry.isFuzzy || (entry.sourceText.map { $0 != string.text } ?? false)
            if index == 0 { state = isStale ? .stale : .translated }
            if isStale && stalePolicy == .fallback { continue }
            return (entry.text, state)
        }
        return (string.text, state)
    }

    /// This locale's own state for a string (for coverage: fallbacks do not count).
    func state(of string: LocalizableText, locale: String, defaultLocale: String) -> TranslationState {
        if locale == defaultLocale { return .source }
        return Self.state(of: string, entry: entries[locale]?[string.key])
    }

    /// The state of a string in a locale other than the default, given the locale's entry for it.
    static func state(of string: LocalizableText, entry: TranslationEntry?) -> TranslationState {
        guard let entry else { return .missing }
        let isStale = entry.isFuzzy || (entry.sourceText.map { $0 != string.text } ?? false)
        return isStale ? .stale : .translated
    }
}

/// `{name}` placeholders, as apps substitute them at run time.
enum Placeholders {
    /// Works on UTF-8 bytes: Character iteration over long markdown bodies is slow.
    static func find(in text: String) -> Set<String> {
        guard UTF8Scan.contains(text, byte: UInt8(ascii: "{")) else { return [] }
        return findSlowly(in: text)
    }

    private static func findSlowly(in text: String) -> Set<String> {
        var names: Set<String> = []
        var current: String?
        for character in text {
            if character == "{" {
                current = ""
            } else if character == "}", let name = current {
                if !name.isEmpty { names.insert(name) }
                current = nil
            } else if current != nil {
                if character.isLetter || character.isNumber || character == "_" { current?.append(character) } else { current = nil }
            }
        }
        return names
    }
}
