import Foundation

/// The `quire` executable (and `quire-bench`), for tests that run it as users and child processes do. SwiftPM puts it
/// in the folder of the test bundle (`swift build --build-tests` and `swift test` build every
/// product), so a test finds the binary of its own build, debug or release, never a stale one.
public enum QuireBinary {
    /// The build folder this test process runs from.
    static let buildFolder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    /// Where the binary must be: next to the test bundle.
    public static let expectedPath = buildFolder.appendingPathComponent("quire").path

    /// The binary's path; throws, naming the command that builds it, when it was not built.
    public static func path() throws -> String { try path(of: "quire") }

    /// The path of another executable of the package (`quire-bench`), found the same way.
    public static func path(of executable: String) throws -> String {
        let path = buildFolder.appendingPathComponent(executable).path
        guard FileManager.default.isExecutableFile(atPath: path) else { throw Missing(path: path) }
        return path
    }

    public struct Missing: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "no binary at \(path): build it with `swift build --build-tests`" }
    }
}
