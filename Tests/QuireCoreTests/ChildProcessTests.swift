import Foundation
import Glibc
import Testing

@testable import QuireCore

/// Children started with `ChildProcess` get the descriptors they are given and no others.
@Suite struct ChildProcessTests {
    /// The descriptors `ls` finds open in itself, but the one it opens to list them.
    private func descriptorsOfAChild(sharing shared: Int32? = nil) throws -> [Int32] {
        let listed = try ChildProcess.run(executable: "/bin/ls", arguments: ["/proc/self/fd"], sharing: shared)
        return String(decoding: listed.stdout, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }
    }

    /// A pipe another thread opened without close-on-exec (Foundation's `Pipe` does) must not
    /// reach a child: the PO parser's child lives on, and would keep the pipe from ever ending
    /// for whoever reads it.
    @Test func aChildDoesNotInheritWhatItWasNotGiven() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        // Far above what the child opens itself.
        let (readEnd, writeEnd) = (fcntl(ends[0], F_DUPFD, 200), fcntl(ends[1], F_DUPFD, 200))
        close(ends[0])
        close(ends[1])
        defer {
            close(readEnd)
            close(writeEnd)
        }
        try #require(readEnd >= 200 && writeEnd >= 200)
        let plain = try descriptorsOfAChild()
        #expect(Set([0, 1, 2]).isSubset(of: plain), "\(plain)")
        #expect(!plain.contains(readEnd) && !plain.contains(writeEnd), "\(plain)")

        let opened = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let lock = fcntl(opened, F_DUPFD_CLOEXEC, 300)
        close(opened)
        defer { close(lock) }
        try #require(lock >= 300)
        let shared = try descriptorsOfAChild(sharing: lock)
        #expect(shared.contains(ChildProcess.sharedDescriptor), "\(shared)")
        #expect(!shared.contains(readEnd) && !shared.contains(writeEnd) && !shared.contains(lock), "\(shared)")
    }
}
