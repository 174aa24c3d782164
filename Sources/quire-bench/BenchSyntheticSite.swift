import Foundation
import Synchronization

/// A generated site for `quire-bench`: N pages of S sections (a hero, a ~3 KB markdown block, a
/// product grid, a button that navigates to another page, then announcements), one translation
/// file per page and extra locale, and the same markdown as a Hugo site for `compare-hugo.sh`.
/// Everything is a pure function of the configuration and the seed, so two runs write equal bytes.
struct SyntheticSite {
    enum Layout: String, CaseIterable {
        /// Every page in the site folder: `page-00042`.
        case flat
        /// Folders of 100 pages: `group-000/page-00042`.
        case nested
    }

    var name = "bench"
    var pageCount: Int
    var sectionsPerPage = 4
    var locales: [String] = ["en", "fr", "es"]
    var layout: Layout = .flat
    var markdownBytes = 3000
    var seed: UInt64 = 2024
    /// `keep:` in site.yaml: the watcher's gc keeps the newest N versions (nil: every version stays).
    var keepVersions: Int? = nil
    /// The translation files' format: YAML, or PO as a translation tool writes it.
    var translationFiles: TranslationFiles = .yaml
    /// A feed of every page (`feeds: {<name>: {pages: "**", page_size: N}}`), or none.
    var feed: (name: String, pageSize: Int)? = nil

    enum TranslationFiles: String, CaseIterable {
        case yaml, po
    }

    static let pagesPerFolder = 100

    /// The first `count` locales of a fixed list; `en` is always the default.
    static func locales(count: Int) -> [String] {
        let known = ["en", "fr", "es", "de", "it", "pt", "nl", "sv", "da", "fi", "pl", "cs"]
        return Array(known.prefix(max(1, min(count, known.count))))
    }

    var defaultLocale: String { locales.first ?? "en" }

    func pageID(_ index: Int) -> String {
        let page = "page-" + Self.padded(index, 5)
        switch layout {
        case .flat: return page
        case .nested: return "group-" + Self.padded(index / Self.pagesPerFolder, 3) + "/" + page
        }
    }

    func sourcePath(pagesRoot: String, page index: Int) -> String {
        "\(pagesRoot)/\(name)/\(pageID(index)).yaml"
    }

    func publishedPath(distRoot: String, page index: Int, locale: String? = nil) -> String {
        "\(distRoot)/\(name)/current/\(locale ?? defaultLocale)/\(pageID(index)).json"
    }

    // MARK: Writing

    /// Writes `pagesRoot/<name>/`: site.yaml, every page and every translation file.
    /// Returns the number of bytes written.
    @discardableResult
    func write(pagesRoot: String) throws -> Int {
        let root = "\(pagesRoot)/\(name)"
        let manager = FileManager.default
        var folders: Set<String> = [root]
        for index in 0..<pageCount {
            folders.insert(("\(root)/\(pageID(index))" as NSString).deletingLastPathComponent)
            for locale in locales.dropFirst() {
                folders.insert(("\(root)/l10n/\(locale)/\(pageID(index))" as NSString).deletingLastPathComponent)
            }
        }
        for folder in folders.sorted() { try manager.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        try Self.put("\(root)/site.yaml", siteYAML)
        // Pages in parallel, in chunks: generating 10,000 pages is text work worth both cores.
        let chunks = 64
        let outcome = Mutex<(bytes: Int, failure: String?)>((Data(siteYAML.utf8).count, nil))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            var bytes = 0
            do {
                for index in stride(from: chunk, to: pageCount, by: chunks) {
                    bytes += try Self.put("\(root)/\(pageID(index)).yaml", pageSource(index))
                    for locale in locales.dropFirst() {
                        bytes += try Self.put(
                            "\(root)/l10n/\(locale)/\(pageID(index)).\(translationFiles.rawValue)", translation(index, locale: locale))
                    }
                }
            } catch {
                outcome.withLock { $0.failure = "\(error)" }
            }
            outcome.withLock { $0.bytes += bytes }
        }
        let (bytes, failure) = outcome.withLock { $0 }
        if let failure { throw BenchError("cannot write the site: \(failure)") }
        return bytes
    }

    @discardableResult
    private static func put(_ path: String, _ text: String) throws -> Int {
        let data = Data(text.utf8)
        try data.write(to: URL(fileURLWithPath: path))
        return data.count
    }

    /// The same pages as a Hugo site: one content folder per language, front matter title, the
    /// page's markdown as the body, and a template that outputs only the rendered content.
    func writeHugo(root: String) throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: "\(root)/layouts/_default", withIntermediateDirectories: true)
        let template = "{{ .Content }}\n"
        try Data(template.utf8).write(to: URL(fileURLWithPath: "\(root)/layouts/_default/single.html"))
        try Data(template.utf8).write(to: URL(fileURLWithPath: "\(root)/layouts/_default/list.html"))
        var config = """
            baseURL = "https://example.com/"
            title = "bench"
            defaultContentLanguage = "\(defaultLocale)"
            defaultContentLanguageInSubdir = true
            disableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404"]

            [languages]

            """
        for (weight, locale) in locales.enumerated() {
            config += "  [languages.\(locale)]\n    contentDir = \"content/\(locale)\"\n    weight = \(weight + 1)\n"
        }
        try Data(config.utf8).write(to: URL(fileURLWithPath: "\(root)/hugo.toml"))
        var madeFolders: Set<String> = []
        for index in 0..<pageCount {
            for locale in locales {
                let path = "\(root)/content/\(locale)/\(pageID(index)).md"
                let folder = (path as NSString).deletingLastPathComponent
                if madeFolders.insert(folder).inserted { try manager.createDirectory(atPath: folder, withIntermediateDirectories: true) }
                try Data(hugoPage(index, locale: locale).utf8).write(to: URL(fileURLWithPath: path))
            }
        }
    }

    /// One Hugo content file: the title (front matter and a heading, so it is in `.Content` as the
    /// hero title is in Quire's page) and the page's markdown. `title` replaces it (for edits).
    func hugoPage(_ index: Int, locale: String, title: String? = nil) -> String {
        let title = title ?? heroTitle(index, locale: locale)
        return "---\ntitle: \(Self.quoted(title))\n---\n\n# \(title)\n\n" + markdown(index, locale: locale)
    }

    var siteYAML: String {
        "title: Synthetic benchmark site\ndefault_locale: \(defaultLocale)\nlocales: [\(locales.joined(separator: ", "))]\n"
            + (keepVersions.map { "keep: \($0)\n" } ?? "")
            + (feed.map { "feeds:\n  \($0.name):\n    pages: \"**\"\n    order: newest\n    page_size: \($0.pageSize)\n" } ?? "")
    }

    // MARK: Page content

    /// The page source in YAML; `heroTitle` replaces the generated title (the benchmark's edits).
    func pageSource(_ index: Int, heroTitle: String? = nil) -> String {
        let locale = defaultLocale
        var text = "title: \(Self.quoted(heroTitle ?? self.heroTitle(index, locale: locale)))\nsections:\n"
        for section in 0..<sectionsPerPage {
            switch section {
            case 0:
                text += """
                      - type: hero_banner
                        id: hero
                        image_url: https://images.example.com/hero/\(index % 50).jpg
                        title: \(Self.quoted(heroTitle ?? self.heroTitle(index, locale: locale)))
                        subtitle: \(Self.quoted(subtitle(index, locale: locale)))

                    """
            case 1:
                text += "  - type: markdown_block\n    id: why\n    body: |\n"
                for line in markdown(index, locale: locale).split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
                    text += line.isEmpty ? "\n" : "      \(line)\n"
                }
            case 2:
                text += "  - type: product_grid\n    id: grid\n    title: \(Self.quoted(gridTitle(index, locale: locale)))\n    items:\n"
                for item in 1...3 {
                    text += """
                              - id: p\(item)
                                title: \(Self.quoted(productTitle(index, item: item, locale: locale)))
                                image_url: https://images.example.com/products/\((index + item) % 200).jpg
                                price: \(Self.quoted(price(index, item: item, locale: locale)))

                        """
                }
            case 3:
                text += """
                      - type: cta_button
                        id: browse
                        label: \(Self.quoted(buttonLabel(index, locale: locale)))
                        action: navigate
                        destination: /\(pageID((index + 1) % pageCount))

                    """
            default:
                text += """
                      - type: announcement
                        id: note-\(section)
                        title: \(Self.quoted(noteTitle(index, section: section, locale: locale)))
                        body: \(Self.quoted(noteBody(index, section: section, locale: locale)))

                    """
            }
        }
        return text
    }

    /// `l10n/<locale>/<page_id>.yaml` (flat keys, translated text) or `.po` (gettext entries:
    /// the key as `msgctxt`, the default locale's text as `msgid`), as `translationFiles` says.
    func translation(_ index: Int, locale: String) -> String {
        let strings = translatedStrings(index, locale: locale)
        switch translationFiles {
        case .yaml:
            return strings.map { key, text in
                guard text.contains("\n") else { return "\(key): \(Self.quoted(text))\n" }
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                return "\(key): |\n" + lines.map { $0.isEmpty ? "\n" : "  \($0)\n" }.joined()
            }.joined()
        case .po:
            let sources = Dictionary(uniqueKeysWithValues: translatedStrings(index, locale: defaultLocale))
            let header = [
                "Project-Id-Version: \(name)", "PO-Revision-Date: 2026-01-01 00:00+0000", "Last-Translator: bench",
                "Language-Team: \(locale)", "Language: \(locale)", "MIME-Version: 1.0", "Content-Type: text/plain; charset=UTF-8",
                "Content-Transfer-Encoding: 8bit", "X-Quire-Page: \(pageID(index))",
            ]
            return "msgid \"\"\nmsgstr \"\"\n" + header.map { Self.quoted($0 + "\n") + "\n" }.joined()
                + strings.map { key, text in
                    let (source, text) = (Self.asBlock(sources[key] ?? ""), Self.asBlock(text))
                    return "\nmsgctxt \(Self.quoted(key))\nmsgid \(Self.quoted(source))\nmsgstr \(Self.quoted(text))\n"
                }.joined()
        }
    }

    /// A text of several lines as a YAML block (`|`) holds it: with one final line break.
    private static func asBlock(_ text: String) -> String {
        guard text.contains("\n") else { return text }
        var trimmed = Substring(text)
        while trimmed.last == "\n" { trimmed = trimmed.dropLast() }
        return trimmed + "\n"
    }

    /// A page's strings in `locale`, in the page's order: (key, text).
    private func translatedStrings(_ index: Int, locale: String) -> [(String, String)] {
        var strings = [("hero.title", heroTitle(index, locale: locale)), ("hero.subtitle", subtitle(index, locale: locale))]
        if sectionsPerPage > 1 { strings.append(("why.body", markdown(index, locale: locale))) }
        if sectionsPerPage > 2 {
            strings.append(("grid.title", gridTitle(index, locale: locale)))
            for item in 1...3 {
                strings.append(("grid.items.p\(item).title", productTitle(index, item: item, locale: locale)))
                strings.append(("grid.items.p\(item).price", price(index, item: item, locale: locale)))
            }
        }
        if sectionsPerPage > 3 { strings.append(("browse.label", buttonLabel(index, locale: locale))) }
        if sectionsPerPage > 4 {
            for section in 4..<sectionsPerPage {
                strings.append(("note-\(section).title", noteTitle(index, section: section, locale: locale)))
                strings.append(("note-\(section).body", noteBody(index, section: section, locale: locale)))
            }
        }
        return strings
    }

    /// About `markdownBytes` of markdown: headings, paragraphs with emphasis and links, lists.
    /// The structure (and every link) depends only on the page; the words on the locale, so a
    /// translation keeps the source's links as the localization checks require.
    func markdown(_ index: Int, locale: String) -> String {
        let source = markdown(index, locale: defaultLocale, blocks: nil)
        return locale == defaultLocale ? source.text : markdown(index, locale: locale, blocks: source.blocks).text
    }

    /// The default locale's text sets the number of blocks; other locales write as many, so
    /// their words may make them a little longer or shorter but never change their links.
    private func markdown(_ index: Int, locale: String, blocks: Int?) -> (text: String, blocks: Int) {
        var random = SeededRandom(seed: seed, stream: UInt64(index) &* 31 &+ 7)
        let words = WordList.words(for: locale)
        func phrase(_ count: Int) -> String {
            (0..<count).map { _ in words[random.next(words.count)] }.joined(separator: " ")
        }
        var text = ""
        var block = 0
        while blocks.map({ block < $0 }) ?? (text.utf8.count < markdownBytes) {
            switch block % 4 {
            case 0:
                text += "### " + phrase(3 + random.next(4)).capitalizedFirst + "\n\n"
            case 1, 2:
                var sentence: [String] = []
                for part in 0..<(6 + random.next(5)) {
                    var words = phrase(6 + random.next(8))
                    switch random.next(8) {
                    case 0: words = "**\(words)**"
                    case 1: words = "*\(words)*"
                    case 2: words = "[\(words)](https://example.com/ref/\(index)/\(block)-\(part))"
                    default: break
                    }
                    sentence.append(words)
                }
                text += sentence.joined(separator: ", ").capitalizedFirst + ".\n\n"
            default:
                for _ in 0..<(3 + random.next(3)) { text += "- " + phrase(4 + random.next(6)) + "\n" }
                text += "\n"
            }
            block += 1
        }
        return (text, block)
    }

    func heroTitle(_ index: Int, locale: String) -> String {
        phrase(index, salt: 1, words: 4, locale: locale).capitalizedFirst + " \(index)"
    }
    func subtitle(_ index: Int, locale: String) -> String { phrase(index, salt: 2, words: 9, locale: locale).capitalizedFirst }
    func gridTitle(_ index: Int, locale: String) -> String { phrase(index, salt: 3, words: 3, locale: locale).capitalizedFirst }
    func buttonLabel(_ index: Int, locale: String) -> String { phrase(index, salt: 4, words: 3, locale: locale).capitalizedFirst }
    func productTitle(_ index: Int, item: Int, locale: String) -> String {
        phrase(index, salt: 10 + UInt64(item), words: 3, locale: locale).capitalizedFirst
    }
    func price(_ index: Int, item: Int, locale: String) -> String {
        let cents = (index * 37 + item * 911) % 20000 + 499
        let amount = "\(cents / 100)" + (locale == defaultLocale ? "." : ",") + Self.padded(cents % 100, 2)
        return locale == defaultLocale ? "$" + amount : amount + " €"
    }
    func noteTitle(_ index: Int, section: Int, locale: String) -> String {
        phrase(index, salt: 100 + UInt64(section), words: 3, locale: locale).capitalizedFirst
    }
    func noteBody(_ index: Int, section: Int, locale: String) -> String {
        phrase(index, salt: 200 + UInt64(section), words: 24, locale: locale).capitalizedFirst + "."
    }

    private func phrase(_ index: Int, salt: UInt64, words count: Int, locale: String) -> String {
        var random = SeededRandom(seed: seed ^ (salt &* 0x9E37_79B9), stream: UInt64(index))
        let words = WordList.words(for: locale)
        return (0..<count).map { _ in words[random.next(words.count)] }.joined(separator: " ")
    }

    // MARK: Helpers

    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// A double-quoted YAML scalar (valid JSON string syntax too).
    static func quoted(_ text: String) -> String {
        var out = "\""
        for character in text {
            switch character {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out + "\""
    }
}

/// SplitMix64: small, fast and the same on every platform, unlike `SystemRandomNumberGenerator`.
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64, stream: UInt64) {
        state = seed &+ stream &* 0xD1B5_4A32_D192_ED03
        _ = nextRaw()
    }

    mutating func nextRaw() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func next(_ bound: Int) -> Int { Int(nextRaw() % UInt64(max(bound, 1))) }
}

/// Words per locale, all lists of one length so a page's structure is equal in every locale.
enum WordList {
    static let english = [
        "range", "target", "drill", "safety", "training", "holster", "sight", "grip", "stance", "trigger",
        "reload", "match", "score", "stage", "timer", "course", "steel", "paper", "practice", "skill",
        "speed", "accuracy", "focus", "gear", "belt", "magazine", "pouch", "lesson", "coach", "student",
        "season", "league", "club", "weekend", "morning", "distance", "movement", "cover", "light", "standard",
    ]
    static let french = [
        "stand", "cible", "exercice", "sécurité", "entraînement", "étui", "visée", "prise", "posture", "détente",
        "rechargement", "match", "score", "étape", "chrono", "parcours", "acier", "papier", "pratique", "savoir",
        "vitesse", "précision", "attention", "matériel", "ceinture", "chargeur", "poche", "leçon", "coach", "élève",
        "saison", "ligue", "club", "week-end", "matin", "distance", "mouvement", "abri", "lumière", "norme",
    ]
    static let spanish = [
        "campo", "blanco", "ejercicio", "seguridad", "entrenamiento", "funda", "mira", "agarre", "postura", "gatillo",
        "recarga", "partido", "puntuación", "etapa", "cronómetro", "recorrido", "acero", "papel", "práctica", "destreza",
        "velocidad", "precisión", "enfoque", "equipo", "cinturón", "cargador", "bolsa", "lección", "entrenador", "alumno",
        "temporada", "liga", "club", "fin-de-semana", "mañana", "distancia", "movimiento", "cobertura", "luz", "norma",
    ]

    static func words(for locale: String) -> [String] {
        switch locale {
        case "en": return english
        case "fr": return french
        case "es": return spanish
        default: return english.map { "\($0)-\(locale)" }
        }
    }
}

extension String {
    var capitalizedFirst: String {
        guard let first else { return self }
        return first.uppercased() + dropFirst()
    }
}
