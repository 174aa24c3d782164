import Foundation
import QuireModel

// The one-pass pipeline of a page (ARCHITECTURE.md, "One save, end to end"):
//
//   read + parse + validate -> load translations -> merge + render markdown -> encode
//     (PagePipeline+Pages)     (+Translations)      (+Rendering: every locale and audience)
//
// Full and delta builds run it for their pages on every core (`PagePass`), each page on its
// own: the pipeline holds only what is the same for every page of a site, and a page's inputs
// come in the pass. What a watcher keeps between builds is `IncrementalState`'s.
struct PagePipeline: Sendable {
    let site: String
    /// How diagnostics name the site folder: `pages/trex`.
    let displayRoot: String
    let previews: Bool

    /// Bump when published output changes for equal input, so every file is rebuilt once.
    static let outputFormat = "quire-output-3"
    /// Bump when previews change for equal pages.
    static let previewFormat = "quire-preview-8"

    func outputKey(
        _ page: ProcessedPage, settingsDigest: String, catalogs: [LoadedCatalog],
        now: Date, linkState: String
    ) -> OutputKey {
        OutputKey(
            settingsDigest: settingsDigest,
            inputs: [page.sourceDigest.text, String(previews), page.scheduleState(at: now), linkState]
                + catalogs.map { $0.locale + $0.digest.text }.sorted())
    }
}

/// What decides whether a page's output can be carried: the settings, its source, previews on or
/// off, where it stands in its schedule, which of the pages it links to exist, and its
/// translations. Equal keys, equal output.
struct OutputKey: Equatable, Sendable {
    private static let separator = "|"
    /// The SHA-256 of every input joined by `separator`, the settings' digest first: a watcher
    /// keeps a key a page, and the inputs themselves take about 350 bytes.
    let digest: Digest

    init(settingsDigest: String, inputs: [String]) {
        var hasher = SHA256()
        hasher.update(settingsDigest)
        for input in inputs {
            hasher.update(Self.separator)
            hasher.update(input)
        }
        digest = hasher.finalizeDigest()
    }

    /// A key as the restart file holds it: its digest.
    func write(to writer: inout BinaryWriter) { digest.write(to: &writer) }

    /// A key the restart file holds; anything but a SHA-256 is not one.
    init(reading reader: inout BinaryReader) throws(BinaryReader.Malformed) {
        let digest = try Digest(reading: &reader)
        guard digest.isSHA256 else { throw BinaryReader.Malformed() }
        self.digest = digest
    }
}

/// A page source as last read: the page validated from it, reused while the bytes and the
/// validation context are equal. Neither its parse nor its model is kept (every string of the
/// source, for each of 10,000 pages): a carried output needs neither, and a page validated or
/// rendered again is read and parsed again. A class: the caches' dictionaries then hold a
/// reference a page, not the page's few hundred bytes in every slot, empty ones included.
final class CachedSource: Sendable {
    let digest: Digest
    let page: ProcessedPage
    /// The file as it was when read (`FileStamp`): a restart takes it as unchanged while it is.
    let stamp: FileStamp?

    init(digest: Digest, page: ProcessedPage, stamp: FileStamp? = nil) {
        self.digest = digest
        self.page = page
        self.stamp = stamp
    }
}

/// A translation file as last read: what its parse said, not the catalog itself. The catalogs of
/// every page would hold a watcher's every translated string for the few pages a change set
/// renders again; those read their files again instead. A class, like `CachedSource`: a watcher
/// keeps one per translation file (200,000 at 100,000 pages), in a dictionary of 524,288 slots.
final class CachedTranslation: Sendable {
    let digest: Digest
    /// The file as it was when read (`FileStamp`): a restart takes it as unchanged while it is.
    let stamp: FileStamp?
    /// The usual parse (a locale, no warnings) is held inline and anything else boxed: room for a
    /// whole diagnostic in each doubled what a watcher held of them.
    private let locale: String?
    private let unusual: UnusualParse?

    init(digest: Digest, parsed: Result<TranslationSummary, Diagnostic>, stamp: FileStamp? = nil) {
        self.digest = digest
        self.stamp = stamp
        if case .success(let summary) = parsed, summary.warnings.isEmpty {
            (locale, unusual) = (summary.locale, nil)
        } else {
            (locale, unusual) = (nil, UnusualParse(parsed: parsed))
        }
    }

    var parsed: Result<TranslationSummary, Diagnostic> {
        unusual?.parsed ?? .success(TranslationSummary(locale: locale, warnings: []))
    }

    private final class UnusualParse: Sendable {
        let parsed: Result<TranslationSummary, Diagnostic>
        init(parsed: Result<TranslationSummary, Diagnostic>) { self.parsed = parsed }
    }
}

/// What a translation file's parse says besides its strings.
struct TranslationSummary {
    /// The locale the file declares, if it does.
    var locale: String?
    var warnings: [Diagnostic]
}
