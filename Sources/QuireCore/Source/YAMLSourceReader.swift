/// Builds `SourceNode`s from libyaml's events. What YAML allows but a page source must not hold
/// is refused here: anchors and aliases (which also stops "billion laughs"), tags outside the
/// standard set, keys that are not scalars, and more than one document.
enum YAMLSourceReader {
    static func read(_ text: UnsafeBufferPointer<UInt8>, file: String, limits: SourceLimits) throws(Diagnostic) -> SourceNode {
        var tree = SourceTreeBuilder(file: file, limits: limits)
        var documents = 0
        try LibYAMLEventReader.forEachEvent(in: text, file: file) { (event) throws(Diagnostic) in
            if event.anchor != nil {
                throw .error(file, at: event.position, SourceMessages.anchorsAndAliases)
            }
            switch event.kind {
            case .documentStart:
                documents += 1
                if documents > 1 { throw .error(file, at: event.position, SourceMessages.moreThanOneDocument) }
            case .sequenceStart, .mappingStart:
                let isMapping = if case .mappingStart = event.kind { true } else { false }
                if tree.expectsKey {
                    throw .error(file, at: event.position, SourceMessages.complexKey(isMapping ? "a mapping" : "a list"))
                }
                try checkCollectionTag(event.tag, isMapping: isMapping, at: event.position, file: file)
                try tree.open(object: isMapping, at: event.position)
            case .collectionEnd:
                tree.close()
            case .scalar(let text, let plain):
                if tree.expectsKey {
                    // A key's meaning matters only for its errors: an untagged key that cannot be
                    // a number (which may be refused) has none.
                    if event.tag != nil || plain && text.utf8.first.map(YAMLCoreSchema.mayStartNumber) == true {
                        _ = try meaning(of: text, plain: plain, tag: event.tag, at: event.position, file: file)
                    }
                    try tree.key(text, at: event.position)
                    return
                }
                let value = try meaning(of: text, plain: plain, tag: event.tag, at: event.position, file: file)
                if case .string(let string) = value {
                    try tree.string(string, at: event.position)
                } else {
                    tree.value(SourceNode(value, at: event.position))
                }
            case .alias:
                throw .error(file, at: event.position, SourceMessages.anchorsAndAliases)
            case .other:
                break
            }
        }
        guard let root = tree.root else { throw .error(file, SourceMessages.emptyFile) }
        return root
    }

    private static func meaning(of text: String, plain: Bool, tag: String?, at position: SourcePosition, file: String) throws(Diagnostic)
        -> SourceNode.Value
    {
        let meaning: YAMLCoreSchema.Meaning
        if let tag, tag != "!" {  // `!` is the non-specific tag: plain text
            let name = standardName(tag)
            guard let name, let tagged = YAMLCoreSchema.resolve(text, tag: name) else {
                if name == "map" || name == "seq" {
                    throw .error(file, at: position, SourceMessages.tagDoesNotFit(display(tag), "a scalar"))
                }
                throw .error(file, at: position, SourceMessages.unsupportedTag(display(tag)))
            }
            meaning = tagged
        } else if plain && tag == nil {
            meaning = YAMLCoreSchema.resolvePlain(text)
        } else {
            meaning = .value(.string(text))
        }
        switch meaning {
        case .value(let value): return value
        case .notFinite: throw .error(file, at: position, SourceMessages.notFinite(text))
        case .integerTooLarge: throw .error(file, at: position, SourceMessages.integerTooLarge(text))
        case .mismatch(let expected):
            throw .error(file, at: position, SourceMessages.notOfTag(text, display(tag ?? ""), expected))
        }
    }

    private static func checkCollectionTag(_ tag: String?, isMapping: Bool, at position: SourcePosition, file: String) throws(Diagnostic) {
        guard let tag, tag != "!" else { return }
        switch standardName(tag) {
        case "map" where isMapping, "seq" where !isMapping: return
        case "str", "int", "float", "bool", "null", "map", "seq":
            throw .error(file, at: position, SourceMessages.tagDoesNotFit(display(tag), isMapping ? "a mapping" : "a list"))
        default:
            throw .error(file, at: position, SourceMessages.unsupportedTag(display(tag)))
        }
    }

    /// `str` for `tag:yaml.org,2002:str`; nil for any other tag.
    private static func standardName(_ tag: String) -> String? {
        tag.hasPrefix(YAMLCoreSchema.tagPrefix) ? String(tag.dropFirst(YAMLCoreSchema.tagPrefix.count)) : nil
    }

    /// A tag as the user wrote it, `!!int` rather than the resolved `tag:yaml.org,2002:int`.
    private static func display(_ tag: String) -> String {
        standardName(tag).map { "!!" + $0 } ?? tag
    }
}
