/// A growable byte buffer for preview HTML, written through a pointer (the preview's twin of
/// QuireModel's `ByteSink`, which is internal there).
///
/// A preview is ~30 KB written in hundreds of small pieces; `[UInt8].append(contentsOf:)` checks
/// uniqueness and capacity and calls out of line on each of them, so this keeps one inlined
/// capacity check per append and grows by doubling out of line.
struct HTMLBytes: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if capacity - count < extra { grow(toHold: count + extra) }
    }

    @inline(never)
    private mutating func grow(toHold needed: Int) {
        let newCapacity = max(capacity * 2, needed)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    mutating func append(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) {
        append(UnsafeBufferPointer(rebasing: bytes))
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A string's UTF-8, read from its storage in place when it has contiguous storage.
    @inline(__always)
    mutating func append(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ append($0) }) != nil { return }
        var copy = text
        copy.withUTF8 { append($0) }
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The bytes written, copied once into an array of exactly their size.
    func array() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let target = buffer.baseAddress { target.initialize(from: base, count: count) }
            initialized = count
        }
    }
}
