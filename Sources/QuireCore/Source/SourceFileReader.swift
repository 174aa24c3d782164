// STUB: replaced by the source-loading work. Signatures are the contract.
/// The one way Quire reads a file from `pages/`: regular files only, never through a symbolic
/// link, never a FIFO or device, never more than the size limit.
public struct SourceFileReader: Sendable {
    public var maxBytes: Int

    public init(maxBytes: Int = SourceLimits.default.maxFileBytes) { self.maxBytes = maxBytes }

    public func read(_ path: String) throws(SourceReadError) -> [UInt8] {
        fatalError("stub")
    }
}

public enum SourceReadError: Error, Sendable, Equatable {
    /// The file is gone (deleted between the event and the read).
    case vanished
    case symbolicLink
    case notRegularFile(kind: String)
    case tooLarge(size: Int, limit: Int)
    case unreadable(errno: Int32, reason: String)

    /// Lower-case, says what is wrong and what to do.
    public var message: String { fatalError("stub") }
}
