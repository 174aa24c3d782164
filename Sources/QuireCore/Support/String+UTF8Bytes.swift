import Glibc

// Paths compared, searched and cut in place, by their UTF-8 bytes: a cold build asks these of
// each of its 60,000 files, and the generic UTF-8 view takes a byte at a time.
extension String {
    /// `parts` end to end, in a string allocated for exactly their bytes: interpolation and `+`
    /// keep the room their growth made (up to twice the bytes), and a build holds a path of
    /// each of its files, read and written.
    init(concatenating parts: String...) {
        var total = 0
        for part in parts { total += part.utf8.count }
        self.init(unsafeUninitializedCapacity: total) { buffer in
            var offset = 0
            for var part in parts {
                part.withUTF8 { bytes in
                    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
                    (buffer.baseAddress! + offset).initialize(from: base, count: bytes.count)
                    offset += bytes.count
                }
            }
            return offset
        }
    }

    /// Whether the first `count` bytes of `other` are this string's bytes from `offset` on: one
    /// `memcmp` where both lend their bytes (native strings do).
    func utf8Matches(_ other: String, count: Int, at offset: Int) -> Bool {
        guard offset >= 0, count >= 0, offset + count <= utf8.count, count <= other.utf8.count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                count == 0 || memcmp(mine.baseAddress! + offset, theirs.baseAddress!, count) == 0
            }
        }
        if let compared, let matches = compared { return matches }
        return utf8.dropFirst(offset).prefix(count).elementsEqual(other.utf8.prefix(count))
    }

    /// When this path is `<folder>/<name>`, the length in bytes of `<folder>` (at least 1).
    func utf8FolderLength(endingWith name: String) -> Int? {
        let folderLength = utf8.count - name.utf8.count - 1
        guard folderLength > 0, utf8Matches("/", count: 1, at: folderLength),
            utf8Matches(name, count: name.utf8.count, at: folderLength + 1)
        else { return nil }
        return folderLength
    }

    /// The offset in bytes of the first `byte` at or after `start`, found with `memchr`.
    func utf8Offset(of byte: UInt8, from start: Int = 0) -> Int? {
        let found = utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            guard let base = bytes.baseAddress, start < bytes.count,
                let match = memchr(base + start, Int32(byte), bytes.count - start)
            else { return nil }
            return UnsafeRawPointer(match) - UnsafeRawPointer(base)
        }
        if let found { return found }
        return utf8.dropFirst(start).firstIndex(of: byte).map { utf8.distance(from: utf8.startIndex, to: $0) }
    }

    /// The bytes before and after the last `byte`, an ASCII byte (so both stay valid UTF-8), cut
    /// in the string's contiguous bytes; nil when there is none.
    func utf8Split(atLast byte: UInt8) -> (before: String, after: String)? {
        let cut = utf8.withContiguousStorageIfAvailable { bytes -> (before: String, after: String)? in
            guard let found = bytes.lastIndex(of: byte) else { return nil }
            return (
                String(decoding: UnsafeBufferPointer(rebasing: bytes[..<found]), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(rebasing: bytes[(found + 1)...]), as: UTF8.self)
            )
        }
        if let cut { return cut }
        guard let found = utf8.lastIndex(of: byte) else { return nil }
        return (String(self[..<found]), String(self[index(after: found)...]))
    }

    /// The first `count` bytes (a prefix that ends before an ASCII byte stays valid UTF-8).
    func utf8Prefix(_ count: Int) -> String { utf8Slice(0..<count) }

    /// The bytes in `range` (a slice between ASCII bytes, or the ends, stays valid UTF-8).
    func utf8Slice(_ range: Range<Int>) -> String {
        let start = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
        return String(Substring(utf8[start..<utf8.index(start, offsetBy: range.count)]))
    }
}
