import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The XMLParser delegate behind `XLIFFReader`: collects units, maps inline markup, and stops at
/// the first error with its position.
final class XLIFFDocumentHandler: NSObject, XMLParserDelegate {
    private let file: String
    private let positions: TextPositions
    private(set) var error: Diagnostic?
    private var warnings: [Diagnostic] = []

    private var version: XLIFFInlineMarkup.Version?
    private var locale: String?
    private var pages: [(id: String, position: SourcePosition)] = []
    private var entries: [TranslationEntry] = []
    private var keyPositions: [String: SourcePosition] = [:]
    private var headerPageID: String?
    /// The PO header's `Language:`, for a file without `target-language`.
    private var headerLocale: String?

    private var unit: UnitInProgress?
    /// Depth inside a subtree of a unit that is not read (`<alt-trans>`, `<seg-source>`, extensions).
    private var skipDepth = 0
    private var capture: TextCapture?
    private var dataCapture: (id: String, text: String)?
    private var noteCapture: (kind: String, text: String)?

    init(file: String, positions: TextPositions) {
        self.file = file
        self.positions = positions
    }

    // MARK: - Results

    func finish() throws(Diagnostic) -> (TranslationCatalog, [Diagnostic]) {
        guard version != nil else {
            throw Diagnostic.error(file, "the file is not XLIFF (no <xliff> root element); export XLIFF 1.2 or 2.0")
        }
        let distinctPages = pages.reduce(into: [String]()) { if !$0.contains($1.id) { $0.append($1.id) } }
        if distinctPages.count > 1, let second = pages.first(where: { $0.id == distinctPages[1] }) {
            throw Diagnostic.error(
                file, at: second.position,
                "the file holds more than one page (\"\(distinctPages[0])\" and \"\(distinctPages[1])\"); export one file per page")
        }
        let catalog = TranslationCatalog(
            file: file, locale: locale ?? headerLocale, pageID: headerPageID ?? distinctPages.first, entries: entries)
        return (catalog, warnings)
    }

    // MARK: - XMLParserDelegate

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        guard error == nil else { return }
        let isXLIFF = namespaceURI.map { $0.isEmpty || $0.hasPrefix("urn:oasis:names:tc:xliff:document:") } ?? true
        let shownName = qualifiedName ?? name

        if capture != nil {
            openInline(name, shownName: shownName, isXLIFF: isXLIFF, attributes: attributes, parser: parser)
            return
        }
        if dataCapture != nil {
            openInsideData(name, isXLIFF: isXLIFF, attributes: attributes, parser: parser)
            return
        }
        if skipDepth > 0 {
            skipDepth += 1
            return
        }
        guard isXLIFF else {
            if unit != nil { skipDepth = 1 }  // tool metadata inside a unit: not ours to read
            return
        }
        if version == nil && name != "xliff" {
            fail(parser, "the root element is <\(shownName)>, not <xliff>; export XLIFF 1.2 or 2.0")
            return
        }
        if unit != nil {
            startInsideUnit(name, attributes: attributes, parser: parser)
            return
        }
        switch name {
        case "xliff": startDocument(attributes, parser: parser)
        case "file": startFile(attributes, parser: parser)
        case "trans-unit" where version == .v1, "unit" where version == .v2:
            unit = UnitInProgress(
                id: attributes["id"], resname: attributes["resname"],
                position: tagPosition(parser),
                isHeader: attributes["restype"] == "x-gettext-domain-header",
                isExcluded: attributes["translate"] == "no")
        default: break
        }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard error == nil else { return }
        if capture != nil {
            closeInline(name, parser: parser)
            return
        }
        if let data = dataCapture {
            if name == "data" {
                unit?.originalData[data.id] = data.text
                dataCapture = nil
            }
            return
        }
        if skipDepth > 0 {
            skipDepth -= 1
            return
        }
        guard unit != nil else { return }
        switch name {
        case "note", "context":
            if let note = noteCapture { unit?.notes.append(note) }
            noteCapture = nil
        case "trans-unit", "unit":
            if let finished = unit { finishUnit(finished, parser: parser) }
            unit = nil
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { appendText(string) }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        appendText(String(decoding: block, as: UTF8.self))
    }

    /// Where libxml2 first found the document not well-formed (later positions drift).
    private(set) var syntaxErrorPosition: SourcePosition?

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if syntaxErrorPosition == nil {
            syntaxErrorPosition = SourcePosition(line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 1))
        }
    }

    // MARK: - Document structure

    private func startDocument(_ attributes: [String: String], parser: XMLParser) {
        switch attributes["version"] ?? "" {
        case "1.0", "1.1", "1.2": version = .v1
        case "2.0", "2.1", "2.2":
            version = .v2
            locale = attributes["trgLang"]
        case let other:
            fail(parser, "unsupported XLIFF version \"\(other)\"; export XLIFF 1.2 or 2.0")
        }
    }

    private func startFile(_ attributes: [String: String], parser: XMLParser) {
        if version == .v1, let target = attributes["target-language"], !target.isEmpty {
            if let known = locale, known != target {
                fail(parser, "the file targets both \"\(known)\" and \"\(target)\"; export one locale per file")
                return
            }
            locale = target
        }
        if let original = attributes["original"], !original.isEmpty {
            pages.append((Self.pageID(fromOriginal: original), tagPosition(parser)))
        }
    }

    /// `original` names the page (Quire's export) or the file it came from (the PO file's path in
    /// translate-toolkit, `/trex-store.yaml` in Crowdin): the page id is that without extension,
    /// and for a PO file path, without its folder.
    static func pageID(fromOriginal original: String) -> String {
        var page = original.hasPrefix("/") ? String(original.dropFirst()) : original
        if page.hasSuffix(".po") || page.hasSuffix(".pot"), let slash = page.lastIndex(of: "/") {
            page = String(page[page.index(after: slash)...])
        }
        for suffix in [".pot", ".po", ".xlf", ".xliff", ".json", ".yaml", ".yml"] where page.hasSuffix(suffix) {
            page.removeLast(suffix.count)
            break
        }
        return page
    }

    private func startInsideUnit(_ name: String, attributes: [String: String], parser: XMLParser) {
        switch name {
        case "alt-trans", "seg-source", "mtc:matches", "matches":
            skipDepth = 1
        case "source", "target":
            let role: TextCapture.Role = name == "source" ? .source : .target
            if role == .target, let state = attributes["state"] { unit?.states.append(state) }
            capture = TextCapture(role: role)
        case "segment", "ignorable":
            if let state = attributes["state"] { unit?.states.append(state) }
        case "data":
            dataCapture = (attributes["id"] ?? "", "")
        case "note":
            noteCapture = (attributes["from"] ?? attributes["category"] ?? "", "")
        case "context":
            noteCapture = (attributes["context-type"] ?? "", "")
        default:
            break
        }
    }

    // MARK: - Text and inline markup

    private func appendText(_ text: String) {
        guard error == nil else { return }
        if capture != nil {
            capture?.text += text
        } else if dataCapture != nil {
            dataCapture?.text += text
        } else if noteCapture != nil, skipDepth == 0 {
            noteCapture?.text += text
        }
    }

    private func openInline(_ name: String, shownName: String, isXLIFF: Bool, attributes: [String: String], parser: XMLParser) {
        guard var current = capture, let version else { return }
        guard isXLIFF else {
            fail(parser, "inline markup <\(shownName)> is not XLIFF and has no markdown equivalent; remove it")
            return
        }
        if let frame = current.frames.last, frame.opening.contentIsCode {
            fail(parser, "inline markup <\(shownName)> inside the original code of <\(frame.name)> is not supported; remove it")
            return
        }
        switch XLIFFInlineMarkup.open(name, attributes: attributes, version: version, originalData: unit?.originalData ?? [:]) {
        case .failure(let problem):
            fail(parser, problem.message)
        case .success(let opening):
            // `rid` pairs them where ids differ (as 1.2 allows), else `id`.
            if version == .v1, name == "bpt" || name == "ept", let id = attributes["rid"] ?? attributes["id"],
                let problem = checkPairOrder(name, id: id, at: tagPosition(parser), in: &current)
            {
                error = .error(file, at: problem.position, problem.message)
                parser.abortParsing()
                return
            }
            current.text += opening.prefix
            current.frames.append(.init(name: name, opening: opening, contentStart: current.text.utf8.count, position: tagPosition(parser)))
            capture = current
        }
    }

    private func closeInline(_ name: String, parser: XMLParser) {
        guard var current = capture else { return }
        guard let frame = current.frames.popLast() else {
            // The end of <source> or <target> itself.
            if current.role == .target, let problem = Self.unfinishedPair(current) {
                error = .error(file, at: problem.position, problem.message)
                parser.abortParsing()
                return
            }
            if var finished = unit {
                if current.role == .source {
                    finished.source += current.text
                } else {
                    finished.target = (finished.target ?? "") + current.text
                }
                unit = finished
            }
            capture = nil
            return
        }
        if frame.opening.contentIsCode && current.text.utf8.count == frame.contentStart {
            guard let fallback = frame.opening.emptyFallback else {
                error = .error(
                    file, at: frame.position,
                    "inline markup <\(frame.name)> is empty and has no equiv-text; give it its original code or remove it")
                parser.abortParsing()
                return
            }
            current.text += fallback
        }
        current.text += frame.opening.suffix
        capture = current
    }

    /// 1.2 `<bpt>`/`<ept>` pairs (a link's start and end): a target must end each after it
    /// starts and nest them, else the markdown comes back broken.
    private func checkPairOrder(
        _ name: String, id: String, at position: SourcePosition, in capture: inout TextCapture
    ) -> (message: String, position: SourcePosition)? {
        let early = { (end: SourcePosition) in
            let message = "the translation has inline code <ept id=\"\(id)\"> before its <bpt id=\"\(id)\">: "
            return (message + "keep the start of each pair of codes (a link, bold, italic) before its end", end)
        }
        if name == "bpt" {
            if capture.role == .source { unit?.sourcePairIDs.insert(id) }
            if let end = capture.endsBeforeStart[id] { return early(end) }
            capture.openPairs.append((id, position))
            return nil
        }
        if capture.openPairs.last?.id == id {
            capture.openPairs.removeLast()
            return nil
        }
        if let inner = capture.openPairs.last?.id, capture.openPairs.contains(where: { $0.id == id }) {
            let message = "inline code <ept id=\"\(id)\"> ends while <bpt id=\"\(inner)\">, which started after its <bpt>, is still open"
            return (message + ": nest the codes as the source does", position)
        }
        guard capture.role == .target else { return nil }
        if unit?.sourcePairIDs.contains(id) == true { return early(position) }
        capture.endsBeforeStart[id] = position  // an error if its <bpt> comes later
        return nil
    }

    /// A 1.2 pair of codes a target starts and never ends, or ends and never starts.
    private static func unfinishedPair(_ capture: TextCapture) -> (message: String, position: SourcePosition)? {
        if let open = capture.openPairs.last {
            let message = "the translation has inline code <bpt id=\"\(open.id)\"> without its <ept id=\"\(open.id)\">"
            return (message + ": keep both codes of a pair", open.position)
        }
        if let end = capture.endsBeforeStart.min(by: { $0.value < $1.value }) {
            let message = "the translation has inline code <ept id=\"\(end.key)\"> without its <bpt id=\"\(end.key)\">"
            return (message + ": keep both codes of a pair", end.value)
        }
        return nil
    }

    private func openInsideData(_ name: String, isXLIFF: Bool, attributes: [String: String], parser: XMLParser) {
        guard isXLIFF, name == "cp", let version,
            case .success(let opening) = XLIFFInlineMarkup.open(name, attributes: attributes, version: version, originalData: [:])
        else {
            fail(parser, "<\(name)> inside <data> is not supported; original data holds text and <cp/> only")
            return
        }
        dataCapture?.text += opening.prefix
    }

    // MARK: - Units

    private func finishUnit(_ finished: UnitInProgress, parser: XMLParser) {
        if finished.isHeader {
            // translate-toolkit keeps the PO header: Quire's export names the page there, and
            // its locale, which po2xliff 3.8 (Debian's) leaves out of `target-language`.
            for line in (finished.target ?? finished.source).split(separator: "\n") {
                if line.hasPrefix("X-Quire-Page:") {
                    headerPageID = line.dropFirst("X-Quire-Page:".count).trimmingCharacters(in: .whitespaces)
                } else if line.hasPrefix("Language:") {
                    let language = line.dropFirst("Language:".count).trimmingCharacters(in: .whitespaces)
                    if !language.isEmpty { headerLocale = language }
                }
            }
            return
        }
        if finished.isExcluded { return }
        guard let key = finished.key else {
            error = .error(file, at: finished.position, "the unit has no id; give every unit the key of its string as id")
            parser.abortParsing()
            return
        }
        if let earlier = keyPositions[key] {
            error = .error(file, at: finished.position, "duplicate key \"\(key)\" (first at line \(earlier.line)); keep one unit per key")
            parser.abortParsing()
            return
        }
        keyPositions[key] = finished.position
        guard let target = finished.target, !target.isEmpty else { return }  // untranslated
        let states = Set(finished.states)
        let untranslatedStates: Set<String> = ["new", "needs-translation"]
        // Crowdin and others copy the source into untranslated targets.
        if !states.isEmpty && states.isSubset(of: untranslatedStates) && target == finished.source { return }
        let isFuzzy = states.contains { $0.hasPrefix("needs-") || $0 == "new" || $0 == "initial" }
        entries.append(
            TranslationEntry(
                key: key, text: target, sourceText: finished.source.isEmpty ? nil : finished.source,
                isFuzzy: isFuzzy, position: finished.position))
    }

    // MARK: - Helpers

    private func tagPosition(_ parser: XMLParser) -> SourcePosition {
        positions.tagStart(endingAt: parser.lineNumber, column: parser.columnNumber)
    }

    private func fail(_ parser: XMLParser, _ message: String) {
        error = .error(file, at: tagPosition(parser), message)
        parser.abortParsing()
    }
}

/// A `<trans-unit>` or `<unit>` being read.
struct UnitInProgress {
    var id: String?
    var resname: String?
    var position: SourcePosition
    var isHeader: Bool
    var isExcluded: Bool
    var source = ""
    var target: String?
    var states: [String] = []
    var originalData: [String: String] = [:]
    /// Ids of the source's 1.2 `<bpt>` elements, to tell a target's misplaced `<ept>`.
    var sourcePairIDs: Set<String> = []
    /// Notes and contexts: (from / context-type, text).
    var notes: [(kind: String, text: String)] = []

    var key: String? {
        if let resname, !resname.isEmpty { return resname }
        if let context = notes.first(where: { $0.kind == "x-po-msgctxt" }) { return context.text }
        for note in notes where ["developer", "x-po-autocomment", ""].contains(note.kind) {
            for line in note.text.split(separator: "\n") where line.hasPrefix(QuireKeyNote.prefix) {
                return String(line.dropFirst(QuireKeyNote.prefix.count)).trimmingCharacters(in: .whitespaces)
            }
        }
        return id
    }
}

/// The text of a `<source>` or `<target>` being read, with the inline elements open in it.
struct TextCapture {
    enum Role { case source, target }
    struct Frame {
        var name: String
        var opening: XLIFFInlineMarkup.Opening
        /// UTF-8 length of the text when the element opened, to tell an empty code element.
        var contentStart: Int
        var position: SourcePosition
    }

    var role: Role
    var text = ""
    var frames: [Frame] = []
    /// The 1.2 `<bpt>` elements not yet ended, innermost last.
    var openPairs: [(id: String, position: SourcePosition)] = []
    /// 1.2 `<ept>` elements met before any `<bpt>` of their id, by id.
    var endsBeforeStart: [String: SourcePosition] = [:]
}

/// The developer note that carries a string's key through tools that drop PO `msgctxt`
/// (translate-toolkit's `po2xliff`, `xliff2po`).
enum QuireKeyNote {
    static let prefix = "key: "
}
