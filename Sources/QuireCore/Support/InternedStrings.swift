import Glibc

/// Equal strings read from a file, as one string (`BinaryReader.sharedString`): looked up by
/// their bytes, so a string seen before is neither validated nor allocated again. An open
/// addressing table probed in order; each slot's hash is kept beside it, so a probe reads the
/// strings only where the hashes are equal (each string is an object elsewhere in memory).
struct InternedStrings {
    private var slots = [String?](repeating: nil, count: 1 << 12)
    /// 0: an empty slot (a hash is never 0).
    private var hashes = [Int](repeating: 0, count: 1 << 12)
    private var count = 0

    /// The string of `utf8`: the one seen before when there is one, else the one `making` makes
    /// (nil when it makes none: the bytes are not well-formed).
    mutating func string(_ utf8: UnsafeBufferPointer<UInt8>, making: (UnsafeBufferPointer<UInt8>) -> String?) -> String? {
        let hash = Self.hash(utf8)
        let mask = slots.count - 1
        var index = hash & mask
        while hashes[index] != 0 {
            if hashes[index] == hash, slots[index]!.utf8.withContiguousStorageIfAvailable({ Self.equal($0, utf8) }) == true {
                return slots[index]
            }
            index = (index + 1) & mask
        }
        guard let made = making(utf8) else { return nil }
        (slots[index], hashes[index]) = (made, hash)
        count += 1
        if count * 4 > slots.count * 3 { grow() }
        return made
    }

    /// Twice the slots; the strings are moved, not copied (no string is touched).
    private mutating func grow() {
        var oldSlots = slots
        let oldHashes = hashes
        slots = [String?](repeating: nil, count: oldSlots.count * 2)
        hashes = [Int](repeating: 0, count: oldSlots.count * 2)
        let mask = slots.count - 1
        for old in oldSlots.indices where oldHashes[old] != 0 {
            var index = oldHashes[old] & mask
            while hashes[index] != 0 { index = (index + 1) & mask }
            hashes[index] = oldHashes[old]
            swap(&slots[index], &oldSlots[old])
        }
    }

    private static func equal(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        guard left.count == right.count else { return false }
        return left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
    }

    private static func hash(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(utf8))
        return hasher.finalize() | 1
    }
}
