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

    deinit { EVP_MD_CTX_free(context) }

    /// The digest as hex, written straight from a stack buffer into the string: a build makes
    /// about 100,000 digests, and the arrays on the way cost more allocations than the string.
    public consuming func finalize() -> String {
        withDigest { Self.hex($0) }
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
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            var index = 0
            for byte in bytes {
                out[index] = digits.utf8Start[Int(byte >> 4)]
                out[index + 1] = digits.utf8Start[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }

    /// The bytes `hex` wrote (lowercase digits); nil for anything else.
    public static func bytes(hex: String) -> [UInt8]? {
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    public static func hash(_ bytes: some Sequence<UInt8>) -> String {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    public static func hash(_ text: String) -> String {
        var hasher = SHA256()
        hasher.update(text)
        return hasher.finalize()
    }
}
