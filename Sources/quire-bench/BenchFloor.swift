import Foundation
import QuireCore
import QuireModel

/// The machine's floor for one size: the cold build's output written again with no work
/// (`WriteFloor`), libyaml and cmark alone over the same sources (`LibraryFloor`), and a save's
/// sync barrier alone, for the same files.
struct Floor {
    static let saveRounds = 50

    var output: WriteFloor.Figures
    var libraries: LibraryFloor.Figures
    var saveFiles: Int
    var saveFileBytes: Int
    var saveMilliseconds: [Double]

    /// `dist` is the site folder of a cold build of the sources in `pages`, whose page-locales'
    /// markdown is `markdown`; the copies go to new folders in `root`.
    static func measure(copying dist: String, pages: String, markdown: [String], filesPerSave: Int, in root: String) throws(StoreError)
        -> Floor
    {
        let libraries = try LibraryFloor.measure(sources: pages, markdown: markdown)
        let shape = try WriteFloor.shape(of: dist)
        let output = try WriteFloor.write(shape, into: "\(root)/floor-cold")
        let sizes = shape.flatMap { $0 }.sorted()
        let median = sizes.isEmpty ? 0 : sizes[sizes.count / 2]
        let save = try WriteFloor.saveBarrier(
            sizes: Array(repeating: median, count: filesPerSave), rounds: saveRounds, in: "\(root)/floor-save")
        return Floor(output: output, libraries: libraries, saveFiles: filesPerSave, saveFileBytes: median, saveMilliseconds: save)
    }

    var json: JSONValue {
        let save = BenchStatistics(saveMilliseconds)
        return .object(
            JSONObject([
                (
                    "cold_output",
                    .object(
                        JSONObject([
                            ("folders", .integer(output.folders)),
                            ("files", .integer(output.files)),
                            ("bytes", .integer(output.bytes)),
                            ("written_s", BenchFormat.number(output.writeSeconds)),
                            ("synced_s", BenchFormat.number(output.syncedSeconds)),
                            ("user_s", BenchFormat.number(output.userSeconds)),
                            ("system_s", BenchFormat.number(output.systemSeconds)),
                        ]))
                ),
                (
                    "libraries_one_core",
                    .object(
                        JSONObject([
                            ("source_files", .integer(libraries.sourceFiles)),
                            ("source_bytes", .integer(libraries.sourceBytes)),
                            ("yaml_events", .integer(libraries.yamlEvents)),
                            ("libyaml_cpu_s", BenchFormat.number(libraries.yamlSeconds)),
                            ("markdown_documents", .integer(libraries.markdownDocuments)),
                            ("markdown_bytes", .integer(libraries.markdownBytes)),
                            ("cmark_cpu_s", BenchFormat.number(libraries.markdownSeconds)),
                        ]))
                ),
                ("cpu_of_the_three_s", BenchFormat.number(cpuOfTheThree)),
                (
                    "save_barrier",
                    .object(
                        JSONObject([
                            ("rounds", .integer(saveMilliseconds.count)),
                            ("files", .integer(saveFiles)),
                            ("file_bytes", .integer(saveFileBytes)),
                            ("p50_ms", BenchFormat.number(save.percentile(50))),
                            ("p90_ms", BenchFormat.number(save.percentile(90))),
                            ("p99_ms", BenchFormat.number(save.percentile(99))),
                        ]))
                ),
            ]))
    }

    /// Writing the output, libyaml and cmark: CPU no cold build of this site can go below.
    var cpuOfTheThree: Double { output.userSeconds + output.systemSeconds + libraries.yamlSeconds + libraries.markdownSeconds }

    static let header = [
        "layout/pages", "files", "MiB", "folders", "written s", "synced s", "write cpu s", "libyaml cpu s", "cmark cpu s",
        "the three cpu s", "save barrier p50 / p90 ms",
    ]

    var row: [String] {
        let save = BenchStatistics(saveMilliseconds)
        return [
            "\(output.files)", BenchFormat.text(Double(output.bytes) / 1_048_576, decimals: 0), "\(output.folders)",
            BenchFormat.text(output.writeSeconds, decimals: 2), BenchFormat.text(output.syncedSeconds, decimals: 2),
            BenchFormat.text(output.userSeconds + output.systemSeconds, decimals: 2),
            BenchFormat.text(libraries.yamlSeconds, decimals: 2), BenchFormat.text(libraries.markdownSeconds, decimals: 2),
            BenchFormat.text(cpuOfTheThree, decimals: 2),
            "\(BenchFormat.text(save.percentile(50), decimals: 2)) / \(BenchFormat.text(save.percentile(90), decimals: 2)) (\(saveFiles) x \(saveFileBytes) B)",
        ]
    }
}
