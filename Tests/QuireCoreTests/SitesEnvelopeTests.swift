import Foundation
import QuireModel
import Testing

@testable import QuireCore

/// The app-facing envelope, pagination, cache headers, fallbacks, schedules, redirects and drill
/// catalogs, built from `Fixtures/sites6/` through `SiteBuilder`.
@Suite struct SitesEnvelopeTests {
    @Test func envelopeAndPaginationArePublished() throws {
        let build = FixtureSiteBuild("acme")
        _ = build.build()
        let first = try #require(build.json("en/home.json"))
        #expect(first["nav"]?.sectionIDs == ["drills"])
        #expect(first["header"]?.sectionIDs == ["welcome"])
        #expect(first["footer"]?.sectionIDs == ["end"])
        #expect(first["refresh"] == ["interval": 600, "on_appear": true])
        #expect(first["part"] == 1)
        #expect(first["parts"] == 2)
        #expect(first["next"] == "home.2.json")
        #expect(first["sections"]?.sectionIDs == ["intro", "popular"])
        let second = try #require(build.json("en/home.2.json"))
        #expect(second["part"] == 2)
        #expect(second["next"] == .null)
        #expect(second["nav"] == nil)
        #expect(second["sections"]?.sectionIDs == ["video"])
        #expect(build.json("en/home.3.json") == nil)
        // Each variant is paginated after its own sections are chosen.
        #expect(build.json("en/home@pro.json")?["parts"] == 3)
        #expect(build.json("en/home.3@pro.json")?["next"] == .null)
        // A page without page_size carries no part fields.
        #expect(build.json("en/old-home.json")?["part"] == nil)
    }

    @Test func headerSectionsHaveTheirOwnTranslationKeys() throws {
        let build = FixtureSiteBuild("acme")
        let settings = SiteSettings.load(siteRoot: "\(FixtureSiteBuild.pagesRoot)/acme", site: "acme", displayRoot: "pages/acme")
        let context = try #require(settings.context)
        let root = try SourceParser.parse(
            Array(try Data(contentsOf: URL(fileURLWithPath: "\(FixtureSiteBuild.pagesRoot)/acme/home.yaml"))),
            format: .yaml, file: "home.yaml")
        let (model, _) = PageValidator.validate(root, pageID: "home", file: "home.yaml", context: context)
        let keys = try #require(model).translatableStrings.map(\.key)
        #expect(keys.contains("nav.drills.label"))
        #expect(keys.contains("header.welcome.body"))
        #expect(keys.contains("intro.body"))
        #expect(keys.contains("sections[4].fallback.body") || keys.contains("video.fallback.body"))
        _ = build
    }

    @Test func perPageTTLReachesTheHeaderFiles() throws {
        let build = FixtureSiteBuild("acme")
        _ = build.build()
        let map = try #require(build.text("http/nginx-ttl.map"))
        #expect(map.contains("\"/acme/current/en/home.json\" 30;"))
        #expect(map.contains("\"/acme/current/en/home.2.json\" 30;"))
        #expect(map.contains("\"/acme/current/en/old-home.json\" 120;"))
        #expect(!map.contains("@"), "audience variants are cached privately by their own location")
        let headers = try #require(build.text("http/_headers"))
        #expect(headers.contains("/en/home.json\n  Cache-Control: public, max-age=30\n"))
        #expect(headers.contains("/en/home@pro.json\n  Cache-Control: private, max-age=30\n"))
        #expect(build.json("en/home.json")?["ttl"] == 30)
    }

    @Test func fallbacksCarryTheFirstAppVersionOfTheirType() throws {
        let build = FixtureSiteBuild("acme")
        _ = build.build()
        let video = try #require(build.json("en/home.2.json")?["sections"]?.arrayValue?.first)
        #expect(video["type"] == "video_embed")
        #expect(video["min_app_version"] == "1.1")
        #expect(video["fallback"]?["type"] == "markdown_block")
        // A markdown field keeps its string; its rendered forms are published beside it.
        #expect(video["fallback"]?["body"] == "Watch the video on our website.")
        #expect(video["fallback"]?["body_html"] == "<p>Watch the video on our website.</p>\n")
        #expect(video["fallback"]?["body_blocks"]?.arrayValue?.first?["type"] == "paragraph")
        let manifest = try #require(build.json("manifest.json"))
        #expect(manifest["format"] == 2)
        #expect(manifest["vocabulary"]?["video_embed"]?["min_app_version"] == "1.1")
    }

    @Test func aSitesOwnMarkdownFieldsArePublishedBesideTheirText() throws {
        let build = FixtureSiteBuild("acme")
        #expect(!build.build().hasErrors)
        let story = try #require(build.json("en/stories.json")?["sections"]?.arrayValue?.first)
        #expect(story["type"] == "testimonial")
        #expect(story["quote"] == "My **first** match, and I placed.")
        #expect(story["quote_html"] == "<p>My <strong>first</strong> match, and I placed.</p>\n")
        #expect(story["quote_blocks"]?.arrayValue?.count == 1)
        let photo = try #require(story["photos"]?.arrayValue?.first)
        #expect(photo["caption"] == "On the *podium*.")
        #expect(photo["caption_html"] == "<p>On the <em>podium</em>.</p>\n")
        #expect(photo["caption_blocks"]?.arrayValue?.first?["type"] == "paragraph")
        #expect(photo["id"] == "podium")
    }

    @Test func schedulesTakeEffectWhenRebuiltAtTheirTime() throws {
        let build = FixtureSiteBuild("acme")
        let before = build.build()
        #expect(before.nextScheduledChange == ScheduleDate.parse("2030-06-01T00:00:00Z"))
        #expect(
            before.scheduled.map { "\($0.pageID)/\($0.section ?? "-")/\($0.action.rawValue)" }
                == ["home/summer/publish", "winter/-/publish"])
        #expect(!(build.text("en/home.2.json") ?? "").contains("SUMMER-SALE"))
        #expect(build.json("en/winter.json") == nil)
        #expect(build.json("en/gone.json") == nil, "an expired page is not published")
        #expect(build.text("preview/en/winter.html")?.contains("data-source=\"preview\"") == true, "a scheduled page still has its preview")
        #expect(build.json("preview/en/winter.json") != nil, "which reads its JSON from beside it")
        let status = try #require(readText("\(build.dist.path)/acme/status/status.json"))
        #expect(status.contains("\"action\": \"publish\""))
        #expect(status.contains("2030-06-01T00:00:00Z"))

        // No file changed, only the time: a new version with the section.
        let during = build.build(at: try #require(ScheduleDate.parse("2030-07-01T00:00:00Z")))
        guard case .published = during.outcome else {
            Issue.record("expected a new version, got \(String(describing: during.outcome))")
            return
        }
        #expect(build.text("en/home.2.json")?.contains("SUMMER-SALE") == true)
        #expect(during.scheduled.first?.action == .expire)
        #expect(during.nextScheduledChange == ScheduleDate.parse("2030-09-01T00:00:00Z"))

        let after = build.build(at: try #require(ScheduleDate.parse("2031-01-01T00:00:00Z")))
        #expect(after.scheduled.isEmpty)
        #expect(after.nextScheduledChange == nil)
        #expect(!(build.text("en/home.2.json") ?? "").contains("SUMMER-SALE"))
        #expect(build.json("en/winter.json")?["title"] == "Winter")
    }

    @Test func redirectStubsArePublished() throws {
        let build = FixtureSiteBuild("acme")
        _ = build.build()
        #expect(build.json("en/old-home.json") == ["page_id": "old-home", "locale": "en", "ttl": 120, "redirect_to": "home"])
    }

    @Test func theDrillCatalogIsNotAPage() throws {
        let build = FixtureSiteBuild("acme")
        let result = build.build()
        #expect(!result.hasErrors)
        #expect(build.json("en/drills.json") == nil)
        #expect(!result.diagnostics.contains { $0.message.contains("drill ids are not checked") })
    }

    @Test func withoutACatalogDrillIdsAreWarnedOncePerSite() throws {
        let build = FixtureSiteBuild("plain")
        let result = build.build()
        let warnings = result.diagnostics.filter { $0.message.contains("drill ids are not checked") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.file.hasSuffix("plain/site.yaml") == true)
        #expect(!result.hasErrors)
        #expect(build.json("en/drills.json") != nil, "without drill_catalog, drills.yaml is an ordinary page")
    }

    @Test(arguments: [
        ("refresh.yaml", "refresh.interval: must be at least 1, found 0"),
        ("refresh.yaml", "refresh.on_appear: must be true or false, found text"),
        ("redirect.yaml", "redirect_to: 'nowhere' is not a page of this site"),
        ("dates.yaml", "publish_at: 'next tuesday' is not an ISO 8601 time"),
        ("dates.yaml", "sections[0].expires_at: is not after publish_at"),
        ("drills-page.yaml", "sections[0].drill_ids[1]: 'no-such-drill' is not in the site's drill catalog"),
        ("fallbacks.yaml", "header[0].fallback.visible_to: a fallback section takes its parent's 'visible_to'"),
        ("fallbacks.yaml", "page_size: must be at least 1, found 0"),
    ])
    func brokenEnvelopesAreErrors(file: String, message: String) throws {
        let build = FixtureSiteBuild("broken")
        let result = build.build()
        let lines = result.diagnostics.filter(\.isError).map(\.description)
        #expect(lines.contains { $0.contains("broken/\(file):") && $0.contains(message) }, "\(lines)")
    }
}
