import Foundation
import QuireCore
import Testing

/// One invalid page per diagnostic: each fixture under `Fixtures/validation/invalid/` is dropped
/// into a valid site and checked (`quire check`'s code path) against its expected lines in
/// `Fixtures/validation/expected/<case>.txt`.
@Suite struct ValidationFixtureTests {
    static let cases: [String] = {
        let folder = SiteFixture.fixtures.appendingPathComponent("validation/invalid").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }()

    @Test func thereAreCases() { #expect(Self.cases.count >= 30) }

    @Test(arguments: cases)
    func diagnosticsMatch(_ name: String) throws {
        let fixture = try SiteFixture()
        try fixture.add(fixture: "validation/invalid/\(name)", as: name)
        let result = fixture.build(publish: false)
        let actual = fixture.lines(result).joined(separator: "\n") + "\n"
        let stem = (name as NSString).deletingPathExtension
        if let difference = Golden.compare(actual, with: "validation/expected/\(stem).txt") {
            Issue.record(Comment(rawValue: difference))
        }
        // Every case is a real problem: an error, or for the warning-only cases a warning.
        #expect(!result.diagnostics.isEmpty)
        #expect(result.diagnostics.allSatisfy { $0.file.hasSuffix(name) })
    }
}
