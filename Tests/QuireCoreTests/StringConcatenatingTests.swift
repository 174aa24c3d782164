import Testing

@testable import QuireCore

/// Paths a build holds one of for each file are made at their exact size
/// (`String(concatenating:)`): the same text interpolation gives, ASCII or not, long or short.
@Suite struct StringConcatenatingTests {
    @Test func aConcatenationIsTheInterpolatedText() {
        let cases: [[String]] = [
            [""], ["", "", ""], ["en", "/", "a"], ["/dev/shm/site-100000/pages", "/", "group-699/page-69900.yaml"],
            ["fr", "/", "été/café-crème", ".json"], ["preview/", "ja", "/", "ページ", ".html"],
            [String(repeating: "x", count: 300), "/", "y"],
        ]
        for parts in cases {
            let joined: String
            switch parts.count {
            case 1: joined = String(concatenating: parts[0])
            case 3: joined = String(concatenating: parts[0], parts[1], parts[2])
            case 4: joined = String(concatenating: parts[0], parts[1], parts[2], parts[3])
            default: joined = String(concatenating: parts[0], parts[1], parts[2], parts[3], parts[4])
            }
            #expect(joined == parts.joined() && joined.utf8.count == parts.reduce(0) { $0 + $1.utf8.count }, "\(parts)")
        }
        #expect(PageFilePath(pageID: "guides/été", locale: "fr", audience: "vip", part: 2).path == "fr/guides/été.2@vip.json")
        #expect(OutputPath.preview(pageID: "guides/a", locale: "en") == "preview/en/guides/a.html")
    }
}
