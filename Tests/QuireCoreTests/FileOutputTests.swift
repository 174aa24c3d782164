import Foundation
import Glibc
import Testing

@testable import QuireCore

/// A file written as it is made (`FileSystem.replaceFile(_:writing:)`, through `FileOutput`):
/// the bytes appended, in order, across many writes of its buffer; and a write that fails
/// leaves the file it was to replace as it was, and no temporary file beside it.
@Suite struct FileOutputTests {
    @Test func piecesLargerAndSmallerThanTheBufferArriveInOrder() throws {
        let dist = TemporaryDist()
        let path = dist.path + "/status.json"
        var generator = SystemRandomNumberGenerator()
        // Pieces of 1 byte to twice the buffer: several writes of the buffer, some of it full
        // past its size.
        let pieces = (0..<400).map { index in
            let count =
                index % 50 == 0
                ? Int.random(in: 1...(2 * FileOutput.bufferSize), using: &generator) : Int.random(in: 1...9_000, using: &generator)
            return (0..<count).map { UInt8(truncatingIfNeeded: $0 &+ index) }
        }
        try FileSystem.replaceFile(path) { output throws(StoreError) in
            for piece in pieces { try output.append { $0 += piece } }
        }
        let expected = pieces.flatMap { $0 }
        #expect(expected.count > 3 * FileOutput.bufferSize)
        #expect(FileManager.default.contents(atPath: path).map { Array($0) } == expected)
        #expect(try FileSystem.list(dist.path) == ["status.json"])
    }

    @Test func aFailedWriteLeavesTheOldFile() throws {
        let dist = TemporaryDist()
        let path = dist.path + "/status.json"
        try FileSystem.replaceFile(path, Array("old".utf8))
        #expect(throws: StoreError.self) {
            try FileSystem.replaceFile(path) { output throws(StoreError) in
                for _ in 0..<3 { try output.append { $0 += [UInt8](repeating: 0x20, count: FileOutput.bufferSize) } }
                throw StoreError("stopped half way")
            }
        }
        #expect(FileManager.default.contents(atPath: path).map { Array($0) } == Array("old".utf8))
        #expect(try FileSystem.list(dist.path) == ["status.json"])
    }
}
