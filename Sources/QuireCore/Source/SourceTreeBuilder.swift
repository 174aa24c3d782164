/// Assembles `SourceNode`s from a stream of open / key / value / close steps, shared by the JSON
/// and YAML readers so both enforce the same rules: the depth limit, the string limit and unique
/// keys. It keeps explicit stacks instead of recursing, so no input can exhaust the thread stack.
struct SourceTreeBuilder {
    struct Frame {
        var isObject: Bool
        var start: SourcePosition
        /// This container's children so far: each frame holds its own, which become the node's
        /// as they are when it closes (moved, not copied out of a shared stack).
        var items: [SourceNode] = []
        var members: [SourceMember] = []
        var pendingKey: String?
        var pendingKeyPosition = SourcePosition.start
        /// Key -> index in `members`, built once an object is too large for a linear scan.
        var keyIndex: [String: Int]?
    }

    /// Objects up to this many members find duplicates by scanning, which beats hashing.
    private static let linearScanLimit = 12
    /// Room a container's children start with: most hold fewer, so one allocation serves.
    private static let initialChildCapacity = 8

    let file: String
    let limits: SourceLimits
    private(set) var frames: [Frame] = []
    private(set) var root: SourceNode?

    init(file: String, limits: SourceLimits) {
        self.file = file
        self.limits = limits
    }

    var innermost: Frame? { frames.last }

    /// Whether the innermost container is an object; nil at the top level. Cheaper than
    /// `innermost`, which copies the frame.
    var innermostIsObject: Bool? { frames.isEmpty ? nil : frames[frames.count - 1].isObject }

    /// True once the top-level value is complete.
    var isComplete: Bool { frames.isEmpty && root != nil }

    /// True when the next scalar is the key of a member.
    var expectsKey: Bool {
        guard !frames.isEmpty else { return false }
        let last = frames.count - 1
        return frames[last].isObject && frames[last].pendingKey == nil
    }

    mutating func open(object isObject: Bool, at position: SourcePosition) throws(Diagnostic) {
        guard frames.count < limits.maxDepth else {
            throw .error(file, at: position, SourceMessages.tooDeep(limit: limits.maxDepth))
        }
        var frame = Frame(isObject: isObject, start: position)
        if isObject {
            frame.members.reserveCapacity(Self.initialChildCapacity)
        } else {
            frame.items.reserveCapacity(Self.initialChildCapacity)
        }
        frames.append(frame)
    }

    mutating func key(_ key: String, at position: SourcePosition) throws(Diagnostic) {
        try checkLength(key, at: position)
        guard !frames.isEmpty else { return }
        if let first = firstMember(named: key, in: frames.count - 1) {
            throw .error(file, at: position, SourceMessages.duplicateKey(key, firstLine: first.keyPosition.line))
        }
        frames[frames.count - 1].pendingKey = key
        frames[frames.count - 1].pendingKeyPosition = position
    }

    mutating func string(_ text: String, at position: SourcePosition) throws(Diagnostic) {
        try checkLength(text, at: position)
        value(SourceNode(.string(text), at: position))
    }

    /// Adds a finished value to the innermost container, or makes it the root.
    mutating func value(_ node: consuming SourceNode) {
        guard !frames.isEmpty else {
            root = node
            return
        }
        let last = frames.count - 1
        guard frames[last].isObject else {
            frames[last].items.append(node)
            return
        }
        guard let key = frames[last].pendingKey.take() else { return }  // readers always send the key first
        frames[last].members.append(SourceMember(key: key, keyPosition: frames[last].pendingKeyPosition, value: node))
        let count = frames[last].members.count
        if frames[last].keyIndex != nil {
            frames[last].keyIndex?[key] = count - 1
        } else if count > Self.linearScanLimit {
            var index: [String: Int] = [:]
            for position in 0..<count { index[frames[last].members[position].key] = position }
            frames[last].keyIndex = index
        }
    }

    mutating func close() {
        guard let frame = frames.popLast() else { return }
        value(SourceNode(frame.isObject ? .object(frame.members) : .array(frame.items), at: frame.start))
    }

    /// The member already named `key` in the frame at `frameIndex` (read in place: copying a
    /// frame costs more than the search).
    private func firstMember(named key: String, in frameIndex: Int) -> SourceMember? {
        if frames[frameIndex].keyIndex != nil { return frames[frameIndex].keyIndex?[key].map { frames[frameIndex].members[$0] } }
        // Comparing lengths first skips most string comparisons outright; the members are read
        // in place, not copied one by one.
        let length = key.utf8.count
        return frames[frameIndex].members.withUnsafeBufferPointer { members in
            for index in members.indices where members[index].key.utf8.count == length && members[index].key == key {
                return members[index]
            }
            return nil
        }
    }

    private func checkLength(_ text: String, at position: SourcePosition) throws(Diagnostic) {
        let length = text.utf8.count
        guard length <= limits.maxStringBytes else {
            throw .error(file, at: position, SourceMessages.stringTooLong(length, limit: limits.maxStringBytes))
        }
    }
}
