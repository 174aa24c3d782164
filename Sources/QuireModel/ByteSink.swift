/// A growable byte buffer written through a pointer: the JSON writer's output, and the HTML
/// previews' (`package`, inlinable, so both modules get the same inlined appends).
///
/// `[UInt8].append` checks uniqueness and capacity and may call out of line on every call; a
/// page or a preview is thousands of small appends (punctuation, markup, runs of text), so this
/// keeps only an inlined capacity check per append and grows by doubling out of line.
/// `@usableFromInline`: without it, Swift 6.3 does not inline a `package` type's inlinable
/// members into another module, and every append from `QuireCore` was a call.
@usableFromInline package struct ByteSink: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var used = 0
    @usableFromInline var capacity: Int

    package init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Bytes written so far.
    @inlinable package var count: Int { used }

    /// Forgets every byte after the first `count` (a piece written, then not wanted).
    @inlinable package mutating func truncate(to count: Int) {
        precondition(count >= 0 && count <= used, "truncating past the end")
        used = count
    }

    @inlinable @inline(__always)
    mutating func reserve(_ extra: Int) {
        if capacity - used < extra { grow(toHold: used + extra) }
    }

    @usableFromInline @inline(never)
    mutating func grow(toHold needed: Int) {
        let newCapacity = max(capacity * 2, needed)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: used)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inlinable @inline(__always)
    package mutating func append(_ byte: UInt8) {
        reserve(1)
        base[used] = byte
        used += 1
    }

    @inlinable @inline(__always)
    package mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + used).update(from: source, count: bytes.count)
        used += bytes.count
    }

    @inlinable @inline(__always)
    package mutating func append(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) {
        append(UnsafeBufferPointer(rebasing: bytes))
    }

    @inlinable @inline(__always)
    package mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A string's UTF-8, read from its storage in place when it has contiguous storage.
    /// Disfavored: a literal would otherwise become a `String` (the default literal type) and
    /// take this path, not the `StaticString` one, which copies its bytes without looking.
    @inlinable @inline(__always) @_disfavoredOverload
    package mutating func append(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ append($0) }) != nil { return }
        var copy = text
        copy.withUTF8 { append($0) }
    }

    @inlinable
    package mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    @inlinable
    package mutating func append(repeating byte: UInt8, count repeated: Int) {
        guard repeated > 0 else { return }
        reserve(repeated)
        (base + used).update(repeating: byte, count: repeated)
        used += repeated
    }

    @inlinable
    package func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        body(UnsafeBufferPointer(start: base, count: used))
    }

    /// The bytes written, copied once into an array of exactly their size.
    @inlinable
    package func array() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: used) { buffer, initialized in
            if let target = buffer.baseAddress { target.initialize(from: base, count: used) }
            initialized = used
        }
    }
}
