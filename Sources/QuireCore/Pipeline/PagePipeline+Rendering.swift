import Foundation
import QuireModel

// Merging translations and rendering each locale and audience variant of a page.
struct PageOutput: Sendable {
    var files: [OutputFile] = []
    var diagnostics: [Diagnostic] = []
    var rendered = 0
    /// One for each locale rendered, in the site's order: an array, since a watcher holds one
    /// for every page, and a dictionary of two or three took three times the room.
    var coverage: [LocaleCoverage] = []
    var milliseconds: Double = 0

    /// The same output once published: every file carried from the newest version.
    var carried: PageOutput {
        var copy = self
        copy.files = files.map { OutputFile(path: $0.path, content: .carried, inputDigest: $0.inputDigest, metadata: $0.metadata) }
        copy.rendered = 0
        copy.milliseconds = 0
        return copy
    }
}

extension PagePipeline {
    func render(
        _ page: ProcessedPage, context: ValidationContext, chains: [String: [String]],
        catalogs: [LoadedCatalog], failedLocales: Set<String>,
        settingsDigest: String, published: [String: PublishedFile], now: Date, clock: StageClock, shells: PreviewShells,
        blobs: StagingBlobs? = nil, keepsFiles: Bool = true
    ) -> PageOutput {
        let started = DispatchTime.now().uptimeNanoseconds
        var output = PageOutput()
        defer { output.milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6 }
        guard let model = page.model else { return output }
        let strings = model.translatableStrings
        // Each markdown text of the page is parsed once, for the checks and every rendering.
        let markdown = MarkdownMemo()
        let (translations, translationDiagnostics) = clock.measure(.merge) {
            PageTranslations.check(
                catalogs.compactMap { loaded in loaded.catalog.map { (loaded.locale, $0) } }, strings: strings,
                links: context.config.linkPolicy, markdown: markdown)
        }
        output.diagnostics += translationDiagnostics
        let config = context.config
        // A draft, or a page outside its schedule, stays out of published pages: its JSON is
        // published beside its preview only, which the preview's script reads instead.
        let isDraft = model.isDraft || !model.schedule.isLive(at: now)
        let audiences = isDraft ? [] : PageRenderer.audiences(of: model)
        let minimumAppVersions = Self.minimumAppVersions(context.vocabulary)
        let scheduleState = model.scheduleState(at: now)
        output.coverage.reserveCapacity(config.locales.count)
        for locale in config.locales {
            let chain = chains[locale] ?? [locale]
            // A broken translation file never replaces a good translated page with a fallback:
            // the locale keeps its last good output (a page never published renders as usual).
            if !failedLocales.isDisjoint(with: chain) {
                let kept = carry(page.pageID, locales: [locale], published: published)
                if !kept.isEmpty {
                    output.files += kept
                    continue
                }
            }
            output.coverage.append(translations.coverage(of: strings, locale: locale, defaultLocale: config.defaultLocale))
            var inputs = SHA256()
            inputs.update(settingsDigest)
            inputs.update(page.sourceDigest)
            inputs.update("schedule:" + scheduleState)
            for catalog in catalogs where chain.contains(catalog.locale) { inputs.update(catalog.locale + catalog.digest.text) }
            let inputDigest = inputs.finalizeDigest()
            let renderer = Self.renderer(
                locale: locale, chain: chain, config: config, translations: translations, markdown: markdown,
                minimumAppVersions: minimumAppVersions, now: now)
            if previews {
                output.files.append(
                    clock.measure(.preview) {
                        previewShell(pageID: page.pageID, locale: locale, isDraft: isDraft, published: published, shells: shells)
                    })
            }
            // Without previews a draft has nothing to render.
            if isDraft && !previews { continue }
            for audience in [nil] + audiences.map(Optional.some) {
                let file = PageFilePath(pageID: page.pageID, locale: locale, audience: audience)
                let path = file.path
                let digest = audience.map { Digest(inputDigest.text + "@" + $0) } ?? inputDigest
                // Part 1 records how many parts there are, so carrying brings the others along.
                if !isDraft, let carried = published[path], carried.inputDigest == digest {
                    let parts = OutputMetadata(carried.metadata).parts
                    for part in 1...max(parts, 1) {
                        let partPath = file.part(part).path
                        output.files.append(
                            OutputFile(path: partPath, content: .carried, inputDigest: digest, metadata: published[partPath]?.metadata))
                    }
                    continue
                }
                let rendered = clock.measure(.markdown) { renderer.render(model, audience: audience) }
                if locale == config.defaultLocale && audience == nil {
                    output.diagnostics += Self.removedWarnings(rendered, file: page.file)
                }
                guard keepsFiles else {
                    if !isDraft { output.rendered += rendered.parts.count }
                    continue
                }
                if isDraft {
                    output.files += draftParts(rendered.parts, digest: digest, published: published, blobs: blobs, clock: clock) {
                        PageFilePath(pageID: page.pageID, locale: locale, part: $0).draftPath
                    }
                    continue
                }
                for (index, part) in rendered.parts.enumerated() {
                    let partFile = file.part(index + 1)
                    let partPath = partFile.path
                    // What the page index lists of the page, on the file it lists (PageIndexFiles).
                    let listed = index == 0 && audience == nil ? PageIndexFiles.metadata(of: model, page: part, text: renderer.text) : []
                    let metadata = OutputMetadata.pageFile(
                        partFile, ttl: model.ttl ?? config.ttl, parts: rendered.parts.count, listed: listed)
                    if published[partPath]?.inputDigest == digest && published[partPath]?.metadata == .object(metadata) {
                        output.files.append(OutputFile(path: partPath, content: .carried, inputDigest: digest, metadata: .object(metadata)))
                        continue
                    }
                    // Compact: apps download it (a third smaller than indented), and nobody edits it.
                    let bytes = clock.measure(.encode) { JSONWriter(pretty: false).bytes(part) }
                    output.files.append(
                        OutputFile(
                            path: partPath, content: blobs?.stage(bytes, at: partPath) ?? .bytes(bytes), inputDigest: digest,
                            metadata: .object(metadata)))
                    output.rendered += 1
                }
            }
        }
        return output
    }

    /// What the markdown stage removed from a page as unsafe, said once (for its default locale).
    static func removedWarnings(_ rendered: PageRenderer.Output, file: String) -> [Diagnostic] {
        rendered.removed.map { string, what in
            .warning(file, at: string.position, keyPath: string.keyPath, "removed \(what): apps never receive it")
        }
    }

    /// Per section type, the first app version that renders it (published beside a `fallback`).
    static func minimumAppVersions(_ vocabulary: Vocabulary) -> [String: String] {
        Dictionary(vocabulary.types.compactMap { type in type.minimumAppVersion.map { (type.name, $0) } }, uniquingKeysWith: { $1 })
    }

    /// The renderer of one locale of a page: its strings resolved along the locale's fallback
    /// `chain`, its markdown rendered through the page's memo.
    static func renderer(
        locale: String, chain: [String], config: SiteConfig, translations: PageTranslations, markdown: MarkdownMemo,
        minimumAppVersions: [String: String], now: Date
    ) -> PageRenderer {
        PageRenderer(
            locale: locale, defaultTTL: config.ttl, now: now, minimumAppVersions: minimumAppVersions, renderMarkdown: markdown.render
        ) { string in
            translations.resolve(string, chain: chain, defaultLocale: config.defaultLocale, stalePolicy: config.stalePolicy).text
        }
    }

    /// Per section type, the first app version that renders it (manifest `vocabulary`).
    static func vocabularyManifest(_ vocabulary: Vocabulary) -> JSONValue {
        var types = JSONObject()
        for type in vocabulary.types {
            types[type.name] = ["min_app_version": type.minimumAppVersion.map(JSONValue.string) ?? .null]
        }
        return .object(types)
    }

    /// A page that failed keeps every file it had in the newest version.
    func carry(_ pageID: String, locales: [String], published: [String: PublishedFile]) -> [OutputFile] {
        var files: [OutputFile] = []
        let locales = Set(locales)
        // Every file of the page (variants, parts) by what its metadata says; its preview and a
        // draft's JSON beside it by their paths.
        for (path, file) in published {
            let locale = OutputMetadata(file.metadata).locale ?? OutputPath.previewLocale(path)
            guard let locale, locales.contains(locale), OutputPath.pageID(ofOutput: path, metadata: file.metadata) == pageID else {
                continue
            }
            files.append(OutputFile(path: path, content: .carried, inputDigest: file.inputDigest, metadata: file.metadata))
        }
        return files
    }

    /// The page's preview: the shell every page at its depth shares, carried while it is the same.
    func previewShell(
        pageID: String, locale: String, isDraft: Bool, published: [String: PublishedFile], shells: PreviewShells
    ) -> OutputFile {
        let path = OutputPath.preview(pageID: pageID, locale: locale)
        let source: PagePreview.Source = isDraft ? .preview : .published
        let digest = shells.digest(source)
        if published[path]?.inputDigest == digest { return OutputFile(path: path, content: .carried, inputDigest: digest) }
        let bytes = shells.shell(pageID: pageID, source: source)
        return OutputFile(path: path, content: .bytes(bytes), inputDigest: digest)
    }

    /// A draft's parts, published beside its preview (`path(part)`) for the preview alone:
    /// no metadata, so neither apps' cache rules nor the page lists count them.
    func draftParts(
        _ parts: [JSONValue], digest: Digest, published: [String: PublishedFile], blobs: StagingBlobs?, clock: StageClock,
        path: (Int) -> String
    ) -> [OutputFile] {
        parts.enumerated().map { index, part in
            let partPath = path(index + 1)
            let partDigest = Digest("\(digest)#\(index + 1)/\(parts.count)")
            if published[partPath]?.inputDigest == partDigest {
                return OutputFile(path: partPath, content: .carried, inputDigest: partDigest)
            }
            let bytes = clock.measure(.encode) { JSONWriter(pretty: false).bytes(part) }
            return OutputFile(path: partPath, content: blobs?.stage(bytes, at: partPath) ?? .bytes(bytes), inputDigest: partDigest)
        }
    }
}
