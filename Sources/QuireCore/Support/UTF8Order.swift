import Glibc

extension String {
    /// Whether this string comes before `other` in the order of their UTF-8 bytes: the order of
    /// manifests, page ids and folder listings. One `memcmp` where both strings lend their bytes
    /// (native ones always do); `utf8.lexicographicallyPrecedes` takes a byte at a time through
    /// the generic view, and a cold build sorts 60,000 names.
    func utf8Precedes(_ other: String) -> Bool {
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                let shared = Swift.min(mine.count, theirs.count)
                let order = shared == 0 ? 0 : memcmp(mine.baseAddress!, theirs.baseAddress!, shared)
                return order != 0 ? order < 0 : mine.count < theirs.count
            }
        }
        if let compared, let precedes = compared { return precedes }
        return utf8.lexicographicallyPrecedes(other.utf8)
    }
}
