import Foundation
import QuireTestSupport
import Testing

/// `quire-bench` end to end, through the built binaries. Figures are checked for presence and
/// sense (counts), never against times.
@Suite(.serialized)
struct QuireBenchTests {

    static func temporaryFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("quire-bench-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func run(_ arguments: [String], executable: String = "quire-bench") throws -> (status: Int32, stdout: Data, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try QuireBinary.path(of: executable))
        process.arguments = arguments
        let output = Pipe()
        // stderr to a file, so a chatty child never blocks on a full pipe we are not reading.
        let errorPath = try temporaryFolder() + "/stderr"
        try #require(FileManager.default.createFile(atPath: errorPath, contents: nil))
        let errors = try #require(FileHandle(forWritingAtPath: errorPath))
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errors.close()
        let stderr = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: (errorPath as NSString).deletingLastPathComponent)
        return (process.terminationStatus, data, stderr)
    }

    @Test func helpListsEverySubcommandAndForeignOptionsAreUsageErrors() throws {
        let help = try Self.run(["--help"])
        #expect(help.status == 0, "\(help.stderr)")
        let text = String(decoding: help.stdout, as: UTF8.self)
        let expected = [
            "usage: quire-bench [--pages-count", "usage: quire-bench generate --out DIR", "usage: quire-bench watch-edits",
            "usage: quire-bench hugo-edits", "  --burst N", "(files; default 1000)",
        ]
        for line in expected {
            #expect(text.contains(line), "quire-bench --help lacks '\(line)'")
        }
        #expect(try Self.run(["generate", "-h"]).status == 0)
        // generate measures nothing: it takes no --saves.
        let saves = try Self.run(["generate", "--out", "/tmp/unused", "--saves", "3"])
        #expect(saves.status == 2)
        #expect(saves.stderr.contains("quire-bench generate does not take --saves"), "\(saves.stderr)")
        #expect(try Self.run(["--serve", "8080"]).status == 2)
        #expect(try Self.run(["frobnicate"]).status == 2, "an operand that is no subcommand")
    }

    @Test func generatedSitePassesCheckAndIsDeterministic() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["a", "b"] {
            let generated = try Self.run(["generate", "--out", "\(folder)/\(name)", "--pages-count", "30", "--layout", "nested"])
            #expect(generated.status == 0, "\(generated.stderr)")
        }
        let check = try Self.run(["check", "--pages", "\(folder)/a/pages"], executable: "quire")
        #expect(check.status == 0, "\(check.stderr)")
        #expect(!check.stderr.contains("error:"), "\(check.stderr)")
        for relative in [
            "pages/bench/site.yaml", "pages/bench/group-000/page-00007.yaml", "pages/bench/l10n/fr/group-000/page-00007.yaml",
            "hugo/content/es/group-000/page-00029.md",
        ] {
            let first = FileManager.default.contents(atPath: "\(folder)/a/\(relative)")
            #expect(first != nil, "\(relative) was not written")
            #expect(first == FileManager.default.contents(atPath: "\(folder)/b/\(relative)"), "\(relative) differs between two runs")
        }
    }

    @Test func benchReportsEveryFigureAsJSON() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // An earlier run's output is gone at the end (moved aside while measuring), nothing beside it.
        let stale = "\(folder)/flat-20/dist-cold-preview/stale"
        try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: true)
        let result = try Self.run([
            "--pages-count", "20", "--saves", "5", "--save-gap", "300ms,0", "--burst", "20", "--layout", "flat",
            "--format", "json", "--out", folder,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: stale))
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        #expect(!names.contains { $0.contains(".old-") }, "\(names)")
        let root = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "stdout is not a JSON object")
        let conditions = try #require(root["conditions"] as? [String: Any])
        for key in ["date", "cores", "file_system", "sync", "previews", "kernel", "load_average_at_start"] {
            #expect(conditions[key] != nil, "conditions.\(key) missing")
        }
        #expect((conditions["cached_inodes_at_end"] as? Int ?? 0) > 0, "conditions.cached_inodes_at_end")
        // The run kept both cores busy for seconds: the host's share of that is known, 0 to 100%.
        let stolen = Self.number(conditions["cpu_stolen_by_host_percent"])
        #expect(
            stolen.map { (0...100).contains($0) } == true,
            "conditions.cpu_stolen_by_host_percent: \(conditions["cpu_stolen_by_host_percent"] ?? "missing")")
        // The benchmark's malloc (which serves its in-process builds) is mimalloc's, not glibc's: the link put it first. Under a
        // sanitizer (tests/deep/sanitizers.sh sets its options) the sanitizer's must win instead.
        let allocator = conditions["allocator"] as? String ?? "none"
        let environment = ProcessInfo.processInfo.environment
        if environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil {
            #expect(allocator == "not mimalloc", "allocator: \(allocator)")
        } else {
            #expect(allocator.hasPrefix("mimalloc 2."), "allocator: \(allocator)")
        }
        let runs = try #require(root["runs"] as? [[String: Any]])
        let run = try #require(runs.first)
        #expect(run["pages"] as? Int == 20)
        #expect(run["layout"] as? String == "flat")
        #expect((run["problems"] as? [Any])?.isEmpty == true, "\(run["problems"] ?? "")")

        let builds = try #require(run["cold_builds"] as? [[String: Any]])
        #expect(builds.map { $0["previews"] as? Bool } == [true, false])
        for build in builds {
            for key in ["wall_s", "pages_per_s", "page_files_per_s", "peak_rss_mib"] {
                #expect(build[key] is Double || build[key] is Int, "cold_builds.\(key)")
            }
            #expect(build["exit_status"] as? Int == 0)
            #expect((build["load_average"] as? String)?.split(separator: " ").count == 3, "cold_builds.load_average")
        }
        // The floor rewrites the first cold build's output: its page and preview files at least,
        // and a save's barrier with one page and one preview per locale.
        let floor = try #require(run["floor"] as? [String: Any])
        let output = try #require(floor["cold_output"] as? [String: Any])
        #expect((output["files"] as? Int ?? 0) > (run["page_files"] as? Int ?? .max), "\(output)")
        #expect((output["bytes"] as? Int ?? 0) > (output["files"] as? Int ?? .max), "\(output)")
        for key in ["written_s", "synced_s"] { #expect(output[key] is Double || output[key] is Int, "floor.cold_output.\(key)") }
        // libyaml over every source (a page's and its translations', plus site.yaml), cmark over
        // every page-locale's markdown.
        let libraries = try #require(floor["libraries_one_core"] as? [String: Any])
        #expect(libraries["source_files"] as? Int == (run["page_files"] as? Int ?? 0) + 1, "\(libraries)")
        #expect(libraries["markdown_documents"] as? Int == run["page_files"] as? Int, "\(libraries)")
        #expect((libraries["yaml_events"] as? Int ?? 0) > (libraries["source_files"] as? Int ?? .max), "\(libraries)")
        #expect(floor["cpu_of_the_three_s"] is Double, "floor.cpu_of_the_three_s")
        let barrier = try #require(floor["save_barrier"] as? [String: Any])
        #expect(barrier["rounds"] as? Int == 50)
        #expect(barrier["files"] as? Int == 2 * (run["locales"] as? Int ?? 0))
        #expect(barrier["p50_ms"] is Double || barrier["p50_ms"] is Int, "floor.save_barrier.p50_ms")

        let stages = try #require(run["stages_cold_ms"] as? [String: Any])
        for stage in ["parse", "validate", "markdown", "encode", "publish", "wall"] {
            #expect(stages[stage] != nil, "stages_cold_ms.\(stage)")
        }
        #expect(run["stages_one_edit_ms"] is [String: Any])

        // A watcher with previews (the default), then one without, each with a series of saves
        // per --save-gap, in order.
        let watchers = try #require(run["watchers"] as? [[String: Any]])
        #expect(watchers.map { $0["previews"] as? Bool } == [true, false])
        for (watcher, previews) in zip(watchers, [true, false]) {
            // The watcher really ran with or without previews: its published tree says so.
            let mode = previews ? "preview" : "no-preview"
            let previewFolder = "\(folder)/flat-20/dist-watch-\(mode)/bench/current/preview"
            #expect(FileManager.default.fileExists(atPath: previewFolder) == previews, "\(previewFolder)")
            try Self.checkSaveSeries(watcher, mode: mode)
            let peak = try #require(Self.number(watcher["peak_rss_mib"]), "\(mode): peak_rss_mib")
            let atEnd = try #require(Self.number(watcher["rss_at_end_mib"]), "\(mode): rss_at_end_mib")
            #expect(atEnd > 0 && peak >= atEnd, "\(mode): the peak (VmHWM) is at least what it held at the end: \(peak) < \(atEnd)")
            // The saves began once the watcher had gone idle after its first publish.
            let settled = Self.number(watcher["settled_s"])
            #expect(settled.map { $0 > 0 && $0 < 60 } == true, "\(mode) settled_s: \(watcher["settled_s"] ?? "missing")")

            for key in ["page_added_to_published", "page_removed_to_gone"] {
                let changes = try #require(watcher[key] as? [String: Any], "\(key) missing")
                #expect(changes["pages"] as? Int == 5, "as many as saves, at most 20")
                #expect(changes["timeouts"] as? Int == 0)
                #expect(changes["p50_ms"] is Double || changes["p50_ms"] is Int, "\(key).p50_ms")
            }
            #expect((watcher["page_added_to_published"] as? [String: Any])?["torn_reads"] as? Int == 0)
            for key in ["burst", "burst_spread"] {
                let burst = try #require(watcher[key] as? [String: Any], "\(key) missing")
                #expect(burst["files"] as? Int == 20)
                #expect(burst["lost"] as? Int == 0)
                // The first file at once, the rest when the files stop: a burst is not a version a file.
                #expect(
                    (1...3).contains(burst["versions_published"] as? Int ?? 0), "\(key): \(burst["versions_published"] ?? "none") versions")
                #expect(burst["last_publish_after_last_write_ms"] != nil)
            }
        }
        // The generated site keeps its newest versions (--keep-versions, 5 by default), so a long
        // run on tmpfs does not run out of inodes; the output says so.
        let siteYAML = try String(contentsOfFile: "\(folder)/flat-20/pages/bench/site.yaml", encoding: .utf8)
        #expect(siteYAML.contains("keep: 5\n"), "\(siteYAML)")
        #expect(conditions["keep_versions"] as? Int == 5)
    }

    /// Two series of 5 saves: 300 ms apart, then back to back (the next save written the moment
    /// the previous one is read back).
    static func checkSaveSeries(_ watcher: [String: Any], mode: String) throws {
        let series = try #require(watcher["save_to_published"] as? [[String: Any]], "\(mode): save_to_published")
        #expect(series.compactMap { number($0["gap_ms"]) } == [300, 0], "\(mode): gaps")
        for latency in series {
            #expect(latency["saves"] as? Int == 5)
            #expect(latency["published"] as? Int == 5)
            for key in ["p50_ms", "p90_ms", "p99_ms"] { #expect(latency[key] is Double || latency[key] is Int, "\(mode): \(key)") }
            // Each save's figure, in order: as many as were published, the median among them.
            let each = try #require(latency["each_ms"] as? [Any]).compactMap(Self.number)
            #expect(each.count == 5 && each.allSatisfy { $0 > 0 }, "\(mode) each_ms: \(each)")
            let median = Self.number(latency["p50_ms"])
            #expect(median.map { each.sorted()[2] == $0 } == true, "p50 \(median ?? -1) of \(each.sorted())")
            for key in ["torn_reads", "missing_reads", "timeouts", "lost"] { #expect(latency[key] as? Int == 0, "\(mode): \(key)") }
            #expect((latency["load_average"] as? String)?.split(separator: " ").count == 3, "\(mode): load_average")
            // The series' wall time is its saves' latencies plus the pauses between them: 5 of
            // 300 ms at least, and none back to back (under a second of other work for 5 saves).
            let seconds = try #require(number(latency["seconds"]), "\(mode): seconds")
            let waited = seconds - each.reduce(0, +) / 1000
            if number(latency["gap_ms"]) == 300 {
                #expect(waited >= 1.5, "\(mode): 5 saves 300 ms apart waited \(waited) s")
            } else {
                #expect(waited < 1.0, "\(mode): back to back waited \(waited) s")
            }
        }
    }

    @Test func keepVersionsSetsSiteYAMLAndSaveGapListsAreForTheWholeRunOnly() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (keep, line) in [("7", "keep: 7\n"), ("0", nil)] {
            let out = "\(folder)/keep-\(keep)"
            let generated = try Self.run(["generate", "--out", out, "--pages-count", "3", "--keep-versions", keep])
            #expect(generated.status == 0, "\(generated.stderr)")
            let yaml = try String(contentsOfFile: "\(out)/pages/bench/site.yaml", encoding: .utf8)
            if let line { #expect(yaml.contains(line), "\(yaml)") } else { #expect(!yaml.contains("keep:"), "\(yaml)") }
            let check = try Self.run(["check", "--pages", "\(out)/pages"], executable: "quire")
            #expect(check.status == 0, "\(check.stderr)")
        }
        // One edit run measures one gap.
        let listed = try Self.run(["watch-edits", "--out", folder, "--save-gap", "1000,0"])
        #expect(listed.status == 2)
        #expect(listed.stderr.contains("takes one --save-gap"), "\(listed.stderr)")
        #expect(try Self.run(["--save-gap", "fast"]).status == 2)
    }

    /// A JSON number as Foundation reads it: an Int when it has no fraction.
    static func number(_ value: Any?) -> Double? {
        (value as? Double) ?? (value as? Int).map(Double.init)
    }
}
