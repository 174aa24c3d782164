import Glibc

/// A file written as it is made, through a buffer: a file of tens of megabytes (a large site's
/// `status.json`) is never whole in memory, where touching that much fresh memory cost more than
/// writing the file. A class: what writes it may be held by a closure (`BinaryWriter(spillingTo:)`).
final class FileOutput {
    /// What the buffer gathers before it is written out.
    static let bufferSize = 1 << 20
    private let descriptor: Int32
    private let path: String
    private var buffer: [UInt8] = []

    init(descriptor: Int32, path: String) {
        (self.descriptor, self.path) = (descriptor, path)
    }

    /// Lets `fill` append to the buffer, and writes the buffer out once it holds `bufferSize`.
    func append(_ fill: (inout [UInt8]) -> Void) throws(StoreError) {
        fill(&buffer)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Writes `bytes` after what the buffer holds, without copying them into it.
    func write(_ bytes: [UInt8]) throws(StoreError) {
        try flush()
        try FileSystem.writeAll(descriptor, bytes, path: path)
    }

    /// Writes out what the buffer holds; the buffer is kept for what follows.
    func flush() throws(StoreError) {
        guard !buffer.isEmpty else { return }
        try FileSystem.writeAll(descriptor, buffer, path: path)
        buffer.removeAll(keepingCapacity: true)
    }
}
