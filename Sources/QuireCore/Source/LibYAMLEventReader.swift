internal import CYAML

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One libyaml parse event, in Swift values, with a 1-based position.
struct YAMLEvent {
    enum Kind {
        case documentStart
        case sequenceStart
        case mappingStart
        case collectionEnd
        /// `plain` is false for quoted and block (`|`, `>`) scalars, which are always text.
        case scalar(text: String, plain: Bool)
        case alias
        case other
    }

    var kind: Kind
    var anchor: String?
    /// The resolved tag (`tag:yaml.org,2002:str` for `!!str`), nil when none was written.
    var tag: String?
    var position: SourcePosition
}

/// The only type that sees libyaml: it runs the event parser over UTF-8 text and hands each
/// event to `body` as a `YAMLEvent`. Parser and events are freed before it returns, also when
/// `body` throws; a libyaml error becomes a diagnostic at libyaml's own problem position.
enum LibYAMLEventReader {
    /// How a text reaches libyaml's scanner.
    enum Input: Sendable {
        /// Through libyaml's reader (`yaml_parser_set_input_string`, its public API), which
        /// decodes, checks and copies one character at a time.
        case reader
        /// Straight into the parser's character buffer, when the reader would take the text
        /// whole (`YAMLReaderCheck`); else through the reader. Only on `preloadCheckedVersion`.
        case preloaded
    }

    /// The libyaml whose reader fields (`buffer`, `unread`, `offset`, `eof`) preloading was
    /// checked against, Debian's: another version may use them otherwise, and a wrong field
    /// would corrupt memory rather than fail, so it gets the reader.
    static let preloadCheckedVersion = "0.2.5"

    /// The linked libyaml's version, as `yaml_get_version` says.
    static let libraryVersion: String = {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        yaml_get_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }()

    /// Whether the linked libyaml is the one preloading was checked against.
    static let canPreload = libraryVersion == preloadCheckedVersion

    /// What a build uses: preloaded where that was checked, the reader otherwise.
    static let defaultInput: Input = canPreload ? .preloaded : .reader

    static func forEachEvent(
        in text: UnsafeBufferPointer<UInt8>, file: String, input: Input = defaultInput,
        _ body: (YAMLEvent) throws(Diagnostic) -> Void
    ) throws(Diagnostic) {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) != 0 else { throw .error(file, "invalid YAML: libyaml could not start (out of memory)") }
        defer { yaml_parser_delete(parser) }
        guard text.baseAddress != nil else { return }  // no text, no events
        setInput(parser, text, input)

        var event = yaml_event_t()
        while true {
            guard yaml_parser_parse(parser, &event) != 0 else { throw syntaxError(parser, text: text, file: file) }
            defer { yaml_event_delete(&event) }
            if event.type == YAML_STREAM_END_EVENT { return }
            try body(convert(event))
        }
    }

    /// How many events libyaml makes of `text`, and nothing else (no Swift values): what the
    /// library alone costs, for `LibraryFloor`. Nil when the text is not YAML.
    static func eventCount(in text: UnsafeBufferPointer<UInt8>) -> Int? {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) != 0 else { return nil }
        defer { yaml_parser_delete(parser) }
        guard text.baseAddress != nil else { return 0 }
        setInput(parser, text, defaultInput)
        var event = yaml_event_t()
        var count = 0
        while true {
            guard yaml_parser_parse(parser, &event) != 0 else { return nil }
            defer { yaml_event_delete(&event) }
            count += 1
            if event.type == YAML_STREAM_END_EVENT { return count }
        }
    }

    /// Gives `text` to `parser`. Preloaded, a text the reader would take whole goes straight
    /// into the parser's character buffer, left as libyaml 0.2.5's reader leaves it at the end
    /// of its input: the text and a NUL, their count of characters unread, end of input seen and
    /// nothing left in the raw buffer, so the reader is never called.
    private static func setInput(_ parser: UnsafeMutablePointer<yaml_parser_t>, _ text: UnsafeBufferPointer<UInt8>, _ input: Input) {
        guard let base = text.baseAddress else { return }
        yaml_parser_set_input_string(parser, base, text.count)
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
        guard input == .preloaded else { return }
        precondition(canPreload, "libyaml \(libraryVersion) is not \(preloadCheckedVersion), whose buffer preloading was checked against")
        guard let characters = YAMLReaderCheck.characterCount(text) else { return }
        // The scanner looks a few characters ahead, also past the NUL: zeros there, as in a
        // buffer the reader filled.
        let size = text.count + 1 + 16
        var buffer = parser.pointee.buffer
        if buffer.end - buffer.start < size {
            guard let grown = malloc(size) else { return }
            free(buffer.start)  // libyaml allocates with malloc and frees with free
            buffer.start = grown.assumingMemoryBound(to: yaml_char_t.self)
            buffer.end = buffer.start + size
        }
        UnsafeMutableRawPointer(buffer.start).copyMemory(from: base, byteCount: text.count)
        (buffer.start + text.count).initialize(repeating: 0, count: size - text.count)
        buffer.pointer = buffer.start
        buffer.last = buffer.start + text.count + 1
        parser.pointee.buffer = buffer
        parser.pointee.unread = characters + 1
        parser.pointee.offset = text.count
        parser.pointee.eof = 1
    }

    private static func convert(_ event: yaml_event_t) -> YAMLEvent {
        let position = SourcePosition(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            return YAMLEvent(kind: .documentStart, position: position)
        case YAML_SEQUENCE_START_EVENT:
            let data = event.data.sequence_start
            return YAMLEvent(kind: .sequenceStart, anchor: string(data.anchor), tag: string(data.tag), position: position)
        case YAML_MAPPING_START_EVENT:
            let data = event.data.mapping_start
            return YAMLEvent(kind: .mappingStart, anchor: string(data.anchor), tag: string(data.tag), position: position)
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            return YAMLEvent(kind: .collectionEnd, position: position)
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            let text = data.value.map { scalarText(UnsafeBufferPointer(start: $0, count: data.length)) } ?? ""
            return YAMLEvent(
                kind: .scalar(text: text, plain: data.style == YAML_PLAIN_SCALAR_STYLE),
                anchor: string(data.anchor), tag: string(data.tag), position: position)
        case YAML_ALIAS_EVENT:
            return YAMLEvent(kind: .alias, anchor: string(event.data.alias.anchor), position: position)
        default:
            return YAMLEvent(kind: .other, position: position)
        }
    }

    /// A scalar's text (`WellFormedUTF8`: libyaml checked it). `scalarTextChecked` is the long
    /// way (`FastPathTests` compares them).
    static func scalarText(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        WellFormedUTF8.string(bytes)
    }

    static func scalarTextChecked(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func syntaxError(_ parser: UnsafeMutablePointer<yaml_parser_t>, text: UnsafeBufferPointer<UInt8>, file: String)
        -> Diagnostic
    {
        let problem = parser.pointee.problem.map { String(cString: $0) } ?? "the parser failed"
        if parser.pointee.error == YAML_MEMORY_ERROR { return .error(file, "invalid YAML: out of memory") }
        let position: SourcePosition
        if parser.pointee.error == YAML_READER_ERROR {
            // Reader errors carry a byte offset, not a mark.
            var tracker = SourcePositionTracker(text)
            position = tracker.position(at: Int(parser.pointee.problem_offset))
        } else {
            position = mark(parser.pointee.problem_mark)
        }
        let context = parser.pointee.context.map { String(cString: $0) }
        let contextPosition = context == nil ? nil : mark(parser.pointee.context_mark)
        return .error(file, at: position, SourceMessages.yamlSyntax(problem, context: context, at: contextPosition))
    }

    private static func mark(_ mark: yaml_mark_t) -> SourcePosition {
        SourcePosition(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }
}
