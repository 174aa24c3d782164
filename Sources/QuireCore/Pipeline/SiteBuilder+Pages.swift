import QuireModel
import Foundation

// Reading, parsing and validating pages (concurrent, per page).
extension SiteBuilder {

    struct ProcessedPage: Sendable {
        var pageID: String
        var file: String
        var sourceDigest: String
        var model: PageModel?
        var diagnostics: [Diagnostic]
    }

    /// Reads, parses and validates every page, in parallel; unchanged bytes reuse the parse.
    func processPages(_ pageIDs: [String], inventory: SiteInventory, context: ValidationContext,
                              reader: SourceFileReader, clock: StageClock, canReuse: @Sendable (String) -> Bool) -> [ProcessedPage] {
        let cache = sourceCache
        let slots = ResultSlots<(ProcessedPage, CachedSource?)>(count: pageIDs.count)
        let keepsSources = options.keepsSources
        DispatchQueue.concurrentPerform(iterations: pageIDs.count) { index in
            let source = inventory.pages[pageIDs[index]]?.first
            let cached = source.flatMap { cache[$0.path] }
            let (page, cache) = self.processPage(pageIDs[index], inventory: inventory, context: context, reader: reader, clock: clock,
                                                 cached: cached, reuse: source.map { canReuse($0.path) } ?? false)
            slots.set(index, (page, keepsSources ? cache : nil))
        }
        var pages: [ProcessedPage] = []
        var newCache: [String: CachedSource] = [:]
        for (index, slot) in slots.values.enumerated() {
            guard let (page, cached) = slot else { continue }
            pages.append(page)
            if let cached, let source = inventory.pages[pageIDs[index]]?.first { newCache[source.path] = cached }
        }
        sourceCache = newCache
        return pages
    }

    /// One page: `cached` is its last read (reused as is when `reuse`, its parse reused while the
    /// bytes are equal). Returns the page and what to cache for it (nil: cache nothing).
    func processPage(_ pageID: String, inventory: SiteInventory, context: ValidationContext, reader: SourceFileReader,
                     clock: StageClock, cached: CachedSource?, reuse: Bool) -> (ProcessedPage, CachedSource?) {
        let sources = inventory.pages[pageID] ?? []
        let display = sources.map { "\(self.displayRoot)/\($0.relativePath)" }
        guard sources.count == 1, let source = sources.first else {
            let names = display.joined(separator: ", ")
            let diagnostics = display.map { Diagnostic.error($0, "page id '\(pageID)' is claimed by more than one file (\(names)): keep one") }
            return (ProcessedPage(pageID: pageID, file: display.first ?? pageID, sourceDigest: "", model: nil, diagnostics: diagnostics), nil)
        }
        let file = display[0]
        if reuse, let cached { return (cached.page, cached) }
        let bytes: [UInt8]
        let readStarted = DispatchTime.now().uptimeNanoseconds
        defer { clock.add(.read, DispatchTime.now().uptimeNanoseconds - readStarted) }
        do throws(SourceReadError) {
            bytes = try reader.read(source.path)
        } catch {
            return (ProcessedPage(pageID: pageID, file: file, sourceDigest: "", model: nil, diagnostics: [.error(file, "this file \(error.message)")]), nil)
        }
        let digest = clock.measure(.hash) { SHA256.hash(bytes) }
        let parsed: Result<SourceNode, Diagnostic>
        if let cached, cached.digest == digest {
            parsed = cached.parsed
        } else {
            let format = SourceFormat(pathExtension: SiteInventory.splitExtension(source.relativePath).pathExtension) ?? .yaml
            let limits = context.config.limits
            parsed = clock.measure(.parse) { Result { () throws(Diagnostic) in try SourceParser.parse(bytes, format: format, file: file, limits: limits) } }
        }
        var page = ProcessedPage(pageID: pageID, file: file, sourceDigest: digest, model: nil, diagnostics: [])
        switch parsed {
        case .failure(let diagnostic): page.diagnostics = [diagnostic]
        case .success(let root):
            let (model, diagnostics) = clock.measure(.validate) { PageValidator.validate(root, pageID: pageID, file: file, context: context) }
            page.model = model
            page.diagnostics = diagnostics
        }
        return (page, CachedSource(digest: digest, parsed: parsed, page: page))
    }
}
