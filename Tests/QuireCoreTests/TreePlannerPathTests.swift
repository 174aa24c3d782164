import Testing

@testable import QuireCore

/// The paths a version may hold: checked byte by byte for every published file.
@Suite struct TreePlannerPathTests {
    @Test(arguments: [
        ("en/a.json", 2), ("preview/en/a.html", 7), ("assets/x/y/z.css", 6), ("é/ü.json", 2), ("en/.hidden", 2),
        ("en/...", 2), ("manifest.json.d/a", 15), ("en/manifest.json", 2),
    ])
    func allowed(path: String, topLevel: Int) throws {
        #expect(try TreePlanner.check(path) == topLevel)
    }

    @Test(arguments: [
        ("a.json", "must be inside a folder"), ("", "must be inside a folder"), ("..", "must be inside a folder"),
        ("en//a.json", "segments are not allowed"), ("/en/a.json", "segments are not allowed"), ("en/", "segments are not allowed"),
        ("en/./a.json", "segments are not allowed"), ("en/../a.json", "segments are not allowed"), ("./a", "segments are not allowed"),
        ("en/a\u{0}.json", "segments are not allowed"), ("manifest.json/a", "'manifest.json' is the version's own file"),
        ("build.json/x/y", "'build.json' is the version's own file"), ("build.json/../y", "segments are not allowed"),
    ])
    func refused(path: String, message: String) {
        #expect {
            try TreePlanner.check(path)
        } throws: { error in
            "\(error)".contains(message)
        }
    }
}
