import Foundation

/// What `quire l10n import` did with one file.
public struct TranslationImport: Sendable {
    /// The file as the user named it.
    public var file: String
    public var locale: String?
    public var pageID: String?
    /// Where the file went (`pages/trex/l10n/fr/trex-store.xlf`), nil when it was not written.
    public var destination: String?
    /// Translated strings in the file.
    public var entries = 0
    public var diagnostics: [Diagnostic] = []

    public init(file: String) { self.file = file }

    public var hasErrors: Bool { diagnostics.hasErrors }
}

extension SiteTranslations {
    /// Validates a translated file and, when it has no errors, puts it in
    /// `l10n/<locale>/<page_id>.<ext>` atomically (temporary file + rename, so a watcher sees the
    /// whole file once). The locale and page come from the file where it says them (XLIFF
    /// target language and `original`, PO `Language:` and `X-Quire-Page:`, JSON/YAML `@locale`
    /// and `@page_id`), else from `locale` and the file's name.
    ///
    /// `replace`: allow replacing a file of the same name that has translations this one lacks
    /// (an export made with `--only` holds only some keys).
    public func importFile(_ path: String, locale requested: String?, replace: Bool = false, write: Bool = true) -> TranslationImport {
        var result = TranslationImport(file: path)
        let (stem, pathExtension) = SiteInventory.splitExtension(path)
        guard let format = TranslationFormat(pathExtension: pathExtension) else {
            result.diagnostics.append(.error(path, "not a translation file: use .xlf, .xliff, .po, .json or .yaml"))
            return result
        }
        let bytes: [UInt8]
        do throws(SourceReadError) {
            bytes = try SourceFileReader(maxBytes: config.limits.maxFileBytes).read(path)
        } catch {
            result.diagnostics.append(error.diagnostic(path))
            return result
        }
        let catalog: TranslationCatalog
        do throws(Diagnostic) {
            let (read, warnings) = try TranslationFileReader.read(bytes, file: path, format: format, poParserExecutable: poParserExecutable)
            catalog = read
            result.diagnostics += warnings
        } catch {
            result.diagnostics.append(error)
            return result
        }
        result.entries = catalog.entries.count

        guard let locale = importLocale(catalog, requested: requested, into: &result),
            let pageID = importPageID(catalog, stem: stem, into: &result)
        else { return result }
        result.locale = locale
        result.pageID = pageID
        result.diagnostics += check(catalog, locale: locale, pageID: pageID)

        let relative = "l10n/\(locale)/\(pageID).\(pathExtension)"
        checkOtherFiles(catalog, relative: relative, locale: locale, pageID: pageID, replace: replace, into: &result)
        if catalog.entries.isEmpty {
            result.diagnostics.append(.warning(path, "the file has no translated strings: nothing to import"))
        }
        guard !result.hasErrors, !catalog.entries.isEmpty else { return result }
        let destination = "\(siteRoot)/\(relative)"
        if write {
            do throws(StoreError) {
                try Self.installAtomically(bytes, at: destination)
            } catch {
                result.diagnostics.append(.error(path, "cannot write \(displayRoot)/\(relative): \(error)"))
                return result
            }
        }
        result.destination = "\(displayRoot)/\(relative)"
        return result
    }

    private func importLocale(_ catalog: TranslationCatalog, requested: String?, into result: inout TranslationImport) -> String? {
        let file = result.file
        if let declared = catalog.locale, let requested, declared != requested {
            result.diagnostics.append(
                .error(
                    file,
                    "the file says it is for locale '\(declared)', not '\(requested)' (--locale): fix its target language or drop --locale")
            )
            return nil
        }
        guard let locale = catalog.locale ?? requested else {
            result.diagnostics.append(.error(file, "the file does not say which locale it translates to: pass --locale"))
            return nil
        }
        if let why = TranslationFileRules.unusedReason(locale: locale, config: config) {
            result.diagnostics.append(.error(file, "the file \(why): not imported"))
            return nil
        }
        return locale
    }

    /// The page the file names, else the longest page id the file's path ends with
    /// (`out/guides/range-safety.xlf` -> `guides/range-safety`).
    private func importPageID(_ catalog: TranslationCatalog, stem: String, into result: inout TranslationImport) -> String? {
        if let declared = catalog.pageID, page(declared) != nil { return declared }
        let byName = pages.map(\.pageID).filter { stem == $0 || stem.hasSuffix("/\($0)") }.max { $0.count < $1.count }
        if let byName { return byName }
        let said = catalog.pageID.map { " (it names '\($0)', which is not a valid page of site '\(site)')" } ?? ""
        result.diagnostics.append(
            .error(
                result.file,
                "cannot tell which page the file translates\(said): name the file <page_id>.\(SiteInventory.splitExtension(result.file).pathExtension), like \(pages.first.map(\.pageID) ?? "home")"
            ))
        return nil
    }

    /// A file of the same name is replaced: refuse when that loses translations. Files of other
    /// formats for the same page and locale stay; say where both translate a key.
    private func checkOtherFiles(
        _ catalog: TranslationCatalog, relative: String, locale: String, pageID: String,
        replace: Bool, into result: inout TranslationImport
    ) {
        let keys = Set(catalog.entries.map(\.key))
        for other in translationFiles[pageID] ?? [] where other.locale == locale {
            guard let existing = catalogsByFile[other.file.relativePath] else { continue }
            let display = "\(displayRoot)/\(other.file.relativePath)"
            if other.file.relativePath == relative {
                let lost = existing.entries.map(\.key).filter { !keys.contains($0) }
                if !lost.isEmpty && !replace {
                    let shown = lost.prefix(5).map { "'\($0)'" }.joined(separator: ", ") + (lost.count > 5 ? ", ..." : "")
                    result.diagnostics.append(
                        .error(
                            result.file,
                            "replacing \(display) would lose its \(lost.count) translation\(lost.count == 1 ? "" : "s") of \(shown), which this file lacks: import a complete file (export without --only), or pass --replace"
                        ))
                }
            } else {
                let both = existing.entries.map(\.key).filter { keys.contains($0) }
                if !both.isEmpty {
                    result.diagnostics.append(
                        .warning(
                            result.file,
                            "\(display) also translates \(both.count) of these keys ('\(both[0])'\(both.count > 1 ? ", ..." : "")) for \(locale): keep one file per page and locale, or remove the keys from one of them"
                        ))
                }
            }
        }
    }

    /// Writes a hidden sibling (ignored by the scanner and the watcher) and renames it into place.
    static func installAtomically(_ bytes: [UInt8], at destination: String) throws(StoreError) {
        let folder = (destination as NSString).deletingLastPathComponent
        let name = (destination as NSString).lastPathComponent
        try FileSystem.makeDirectories(folder)
        let temporary = "\(folder)/.\(name).quire-import-\(getpid())"
        if FileSystem.exists(temporary) { try FileSystem.remove(temporary) }
        do {
            try FileSystem.createFile(temporary, bytes)
            try FileSystem.rename(temporary, to: destination)
        } catch {
            _ = unlink(temporary)
            throw error
        }
    }
}
