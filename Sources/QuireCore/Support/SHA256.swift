internal import CCrypto
import Foundation

/// SHA-256 from libcrypto, as lower-case hex. The only file that sees OpenSSL.
/// Non-copyable: it owns the C digest context, freed exactly once.
public struct SHA256: ~Copyable {
    private var context: OpaquePointer

    /// Fetched once: OpenSSL 3 looks `EVP_sha256()` up in its provider tables, under a lock, on
    /// every init that names it, and a cold build makes 100,000 small digests.
    /// A fetched algorithm is immutable and may be shared by threads.
    private nonisolated(unsafe) static let algorithm: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

    public init() {
        context = EVP_MD_CTX_new()
        EVP_DigestInit_ex(context, Self.algorithm ?? EVP_sha256(), nil)
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if let done: Void = bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) {
            return done
        }
        Array(bytes).withUnsafeBytes { update($0) }
    }

    public mutating func update(_ text: String) {
        var text = text
        text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// A digest's text, as `update(digest.text)` would hash it.
    public mutating func update(_ digest: Digest) {
        digest.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    deinit { EVP_MD_CTX_free(context) }

    /// The digest as hex, written straight from a stack buffer into the string: a build makes
    /// about 100,000 digests, and the arrays on the way cost more allocations than the string.
    public consuming func finalize() -> String {
        withDigest { Self.hex($0) }
    }

    /// The digest as Quire holds it (`Digest`): no hex is written.
    public consuming func finalizeDigest() -> Digest {
        withDigest { Digest(sha256: UnsafeRawBufferPointer($0)) }
    }

    /// The raw 32-byte digest (a Content-Security-Policy hash is its base64).
    public consuming func finalizeBytes() -> [UInt8] {
        withDigest { Array($0) }
    }

    /// Finishes the digest into a stack buffer, lent to `body`.
    private func withDigest<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(EVP_MAX_MD_SIZE)) { digest in
            var length: UInt32 = 0
            EVP_DigestFinal_ex(context, digest.baseAddress, &length)
            return body(UnsafeBufferPointer(rebasing: digest[..<Int(length)]))
        }
    }

    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in writeHex(bytes, into: out) }
    }

    /// Lower-case hex digits of `bytes` into `out` (twice their count); returns how many.
    @discardableResult
    static func writeHex(_ bytes: some Collection<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let digits: StaticString = "0123456789abcdef"
        var index = 0
        for byte in bytes {
            out[index] = digits.utf8Start[Int(byte >> 4)]
            out[index + 1] = digits.utf8Start[Int(byte & 0x0F)]
            index += 2
        }
        return index
    }

    public static func hash(_ bytes: some Sequence<UInt8>) -> String { digest(bytes).text }

    public static func digest(_ bytes: some Sequence<UInt8>) -> Digest {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalizeDigest()
    }

    public static func hash(_ text: String) -> String {
        var hasher = SHA256()
        hasher.update(text)
        return hasher.finalize()
    }
}
