import Foundation

@testable import QuireCore

/// Fixtures under `Fixtures/source/`, read from the source tree next to this file.
enum SourceFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/source")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// Parses a fixture, naming it `source/<name>` in diagnostics.
    static func parse(_ name: String, limits: SourceLimits = .default) throws -> SourceNode {
        let format = SourceFormat(pathExtension: (name as NSString).pathExtension) ?? .json
        return try SourceParser.parse(try bytes(name), format: format, file: "source/" + name, limits: limits)
    }

    /// The diagnostic text a fixture fails with, or nil when it parses.
    static func failure(_ name: String, limits: SourceLimits = .default) throws -> String? {
        do {
            _ = try parse(name, limits: limits)
            return nil
        } catch let diagnostic as Diagnostic {
            return diagnostic.description
        }
    }
}
