/// An operational failure (I/O, lock held, disk full): exit code 3.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// For system failures: what was being done (`rename`, `create`, ...), on which path, and errno.
    public var operation: String?
    public var path: String?
    public var errorNumber: Int32?

    public init(_ description: String) { self.description = description }
}
