import Foundation
import QuireModel

// Reading, parsing and validating pages (concurrent, per page).
struct ProcessedPage: Sendable {
    var pageID: String
    var file: String
    var sourceDigest: Digest
    /// Nil for a page that did not validate, and for one the builder's cache kept (`CachedSource`
    /// keeps what carrying its output needs, below, not its model).
    private(set) var model: PageModel?
    /// It validated (whether or not its model is still here).
    private(set) var hasModel = false
    private(set) var isDraft = false
    private(set) var timetable: PageTimetable?
    private(set) var usesDrillCarousel = false
    var diagnostics: [Diagnostic]
    /// The page ids it looked up (`PageValidator.linkedPageIDs`), whether it validated or not.
    var linkedPageIDs: Set<String> = []

    init(pageID: String, file: String, sourceDigest: Digest, model: PageModel?, diagnostics: [Diagnostic]) {
        self.pageID = pageID
        self.file = file
        self.sourceDigest = sourceDigest
        self.diagnostics = diagnostics
        setModel(model)
    }

    /// A page as a restart file recorded it (`RestartCache`), without its model.
    init(
        restoring pageID: String, file: String, sourceDigest: Digest, hasModel: Bool, isDraft: Bool, timetable: PageTimetable?,
        usesDrillCarousel: Bool, diagnostics: [Diagnostic], linkedPageIDs: Set<String>
    ) {
        (self.pageID, self.file, self.sourceDigest, self.diagnostics, self.linkedPageIDs) =
            (pageID, file, sourceDigest, diagnostics, linkedPageIDs)
        (self.hasModel, self.isDraft, self.timetable, self.usesDrillCarousel) = (hasModel, isDraft, timetable, usesDrillCarousel)
    }

    mutating func setModel(_ model: PageModel?) {
        self.model = model
        hasModel = model != nil
        isDraft = model?.isDraft ?? false
        timetable = model.map(PageTimetable.init)
        usesDrillCarousel = model?.allSections.contains { $0.type == "drill_carousel" } == true
    }

    /// The page as the builder's cache keeps it: a page's model holds every string of its
    /// source, and carrying its output needs none of them.
    var withoutModel: ProcessedPage {
        var page = self
        page.model = nil
        return page
    }

    /// Counted in `pagesTotal`: built, or broken only by warnings.
    var counted: Bool { hasModel || !diagnostics.hasErrors }

    /// Its `publish_at` / `expires_at` still ahead (none for a draft or a broken page).
    func scheduledChanges(after now: Date) -> [ScheduledChange] {
        timetable.map { isDraft ? [] : $0.scheduledChanges(after: now) } ?? []
    }

    /// Which scheduled parts are live at `now` (empty for a broken page).
    func scheduleState(at now: Date) -> String { timetable?.scheduleState(at: now) ?? "" }

    /// Which of its linked page ids are pages of the site: part of what its output (the
    /// preview's links) is rendered from. Empty for a page that links to none.
    func linkState(in pageIDs: Set<String>) -> String {
        linkedPageIDs.sorted().map { (pageIDs.contains($0) ? "+" : "-") + $0 }.joined(separator: " ")
    }
}

/// What the rest of a build needs of one page once it is rendered: not its model, which a
/// one-shot build lets go of page by page. A class: the build's loops over 10,000 pages copied
/// each page's dozen reference-counted fields at every step; now one reference is counted.
final class PageBuild: Sendable {
    let pageID: String
    let file: String
    let diagnostics: [Diagnostic]
    let hasModel: Bool
    let counted: Bool
    let scheduled: [ScheduledChange]
    let usesDrillCarousel: Bool
    let linkedPageIDs: Set<String>
    let outputKey: OutputKey
    let output: PageOutput?
    /// What the builder keeps for the next build (watch mode).
    let cached: CachedSource?
    let translationsCache: [String: CachedTranslation]

    init(_ rendered: RenderedPage, keepingCaches: Bool, now: Date) {
        let page = rendered.page
        pageID = page.pageID
        file = page.file
        diagnostics = page.diagnostics + rendered.translations.diagnostics
        hasModel = page.hasModel
        counted = page.counted
        scheduled = page.scheduledChanges(after: now)
        usesDrillCarousel = page.usesDrillCarousel
        linkedPageIDs = page.linkedPageIDs
        outputKey = rendered.outputKey
        // A page that did not validate renders nothing; its files are carried by the build.
        output = rendered.output ?? PageOutput()
        cached = keepingCaches ? rendered.cached : nil
        translationsCache = keepingCaches ? rendered.translationsCache : [:]
    }
}

extension PagePipeline {
    /// One page: `cached` is its last read, reused as is when `reuse`, or once its bytes are read
    /// and hash the same when `reuseSameBytes`. Returns the page and what to cache for it (nil: cache nothing).
    func processPage(
        _ pageID: String, sources: [SiteInventory.SourceFile], context: ValidationContext, reader: SourceFileReader,
        clock: StageClock, cached: CachedSource?, reuse: Bool, reuseSameBytes: Bool = false
    ) -> (ProcessedPage, CachedSource?) {
        let display = sources.map { "\(self.displayRoot)/\($0.relativePath)" }
        guard sources.count == 1, let source = sources.first else {
            let names = display.joined(separator: ", ")
            let diagnostics = display.map {
                Diagnostic.error($0, "page id '\(pageID)' is claimed by more than one file (\(names)): keep one")
            }
            return (
                ProcessedPage(pageID: pageID, file: display.first ?? pageID, sourceDigest: "", model: nil, diagnostics: diagnostics), nil
            )
        }
        let file = display[0]
        if reuse, let cached { return (cached.page, cached) }
        let (bytes, stamp): ([UInt8], FileStamp?)
        let readStarted = DispatchTime.now().uptimeNanoseconds
        do throws(SourceReadError) {
            (bytes, stamp) = try reader.readStamped(source.path)
            clock.add(.read, DispatchTime.now().uptimeNanoseconds - readStarted)
        } catch {
            return (
                ProcessedPage(
                    pageID: pageID, file: file, sourceDigest: "", model: nil, diagnostics: [error.diagnostic(file)]),
                nil
            )
        }
        let digest = clock.measure(.hash) { SHA256.digest(bytes) }
        // Read again (a restarted watcher's first build): the same bytes validate the same.
        if reuseSameBytes, let cached, cached.digest == digest {
            return (cached.page, cached.stamp == stamp ? cached : CachedSource(digest: digest, page: cached.page, stamp: stamp))
        }
        let format = SourceFormat(pathExtension: SiteInventory.splitExtension(source.relativePath).pathExtension) ?? .yaml
        let limits = context.config.limits
        let parsed = clock.measure(.parse) {
            Result { () throws(Diagnostic) in try SourceParser.parse(bytes, format: format, file: file, limits: limits) }
        }
        var page = ProcessedPage(pageID: pageID, file: file, sourceDigest: digest, model: nil, diagnostics: [])
        switch parsed {
        case .failure(let diagnostic): page.diagnostics = [diagnostic]
        case .success(let root):
            let validated = clock.measure(.validate) { PageValidator.validateLinks(root, pageID: pageID, file: file, context: context) }
            page.setModel(validated.model)
            page.diagnostics = validated.diagnostics
            page.linkedPageIDs = validated.linkedPageIDs
        }
        return (page, CachedSource(digest: digest, page: page.withoutModel, stamp: stamp))
    }
}
