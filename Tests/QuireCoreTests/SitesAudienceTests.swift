import Foundation
import QuireModel
import Testing

@testable import QuireCore

/// Audience variants: a hidden section never reaches a file a lower audience can fetch.
@Suite struct SitesAudienceTests {
    /// Secret text of each audience in `acme/home.yaml`, and who may see it.
    static let secrets: [(text: String, audiences: Set<String>)] = [
        ("SECRET-NAV-INSTRUCTOR", ["instructor"]),
        ("SECRET-HEADER-PRO", ["pro"]),
        ("SECRET-MEMBER-DEAL", ["member"]),
        ("SECRET-PRO-DEAL", ["pro", "instructor"]),
        ("SECRET-UNKNOWN-PRO", ["pro"]),
    ]

    @Test func hiddenSectionsReachOnlyTheirAudiences() throws {
        let build = FixtureSiteBuild("acme")
        let result = build.build()
        #expect(!result.hasErrors, "\(result.diagnostics)")
        let paths = build.publishedPaths()
        #expect(paths.contains("en/home@pro.json"))
        #expect(paths.contains("en/home@member.json"))
        #expect(paths.contains("en/home@instructor.json"))
        for path in paths {
            let text = build.text(path) ?? ""
            // The audience a file is for: after '@' in a page file, none for everything else.
            let audience =
                path.hasSuffix(".json") && path.contains("@")
                ? String(path.split(separator: "@").last!.dropLast(".json".count)) : nil
            for secret in Self.secrets {
                let allowed = audience.map { secret.audiences.contains($0) } ?? false
                if !allowed { #expect(!text.contains(secret.text), "\(path) leaks \(secret.text)") }
            }
        }
        // Previews of the public variant live in the version too (served privately), and hold no secret either.
        let previews = paths.filter { $0.hasPrefix("preview/") }
        #expect(!previews.isEmpty)
    }

    @Test func aVariantHoldsThePublicSectionsAndItsOwn() throws {
        let build = FixtureSiteBuild("acme")
        _ = build.build()
        // page_size 2: the audience's sections are paginated after filtering.
        let publicIDs = try #require(allSectionIDs(build, audience: nil))
        let proIDs = try #require(allSectionIDs(build, audience: "pro"))
        let memberIDs = try #require(allSectionIDs(build, audience: "member"))
        #expect(publicIDs == ["intro", "popular", "video"])
        #expect(proIDs == ["intro", "pro-deal", "popular", "video", "future-thing"])
        #expect(memberIDs == ["intro", "member-deal", "popular", "video"])
        let pro = try #require(build.json("en/home@pro.json"))
        #expect(pro["audience"]?.stringValue == "pro")
        #expect(pro["header"]?.sectionIDs == ["welcome", "pro-banner"])
        #expect(pro["nav"]?.sectionIDs == ["drills"])
        let instructor = try #require(build.json("en/home@instructor.json"))
        #expect(instructor["nav"]?.sectionIDs == ["drills", "instructor-tools"])
        #expect(build.json("en/home.json")?["header"]?.sectionIDs == ["welcome"])
    }

    /// Follows `next` from part 1 and collects every section id.
    func allSectionIDs(_ build: FixtureSiteBuild, audience: String?) -> [String]? {
        var ids: [String] = []
        var next: String? = PageFilePath(pageID: "home", locale: "en", audience: audience).path
        var seen = 0
        while let path = next, seen < 10 {
            guard let part = build.json(path) else { return nil }
            ids += part["sections"]?.sectionIDs ?? []
            next = part["next"]?.stringValue.map { "en/\($0)" }
            seen += 1
        }
        return ids
    }
}
