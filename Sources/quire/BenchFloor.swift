import Foundation
import QuireCore
import QuireModel

/// The machine's floor for one size (`WriteFloor`): the cold build's output written again with
/// no work, and a save's sync barrier alone, for the same files.
struct Floor {
    static let saveRounds = 50

    var output: WriteFloor.Figures
    var saveFiles: Int
    var saveFileBytes: Int
    var saveMilliseconds: [Double]

    /// `dist` is the site folder of a cold build; the copies go to new folders in `root`.
    static func measure(copying dist: String, filesPerSave: Int, in root: String) throws(StoreError) -> Floor {
        let shape = try WriteFloor.shape(of: dist)
        let output = try WriteFloor.write(shape, into: "\(root)/floor-cold")
        let sizes = shape.flatMap { $0 }.sorted()
        let median = sizes.isEmpty ? 0 : sizes[sizes.count / 2]
        let save = try WriteFloor.saveBarrier(sizes: Array(repeating: median, count: filesPerSave), rounds: saveRounds, in: "\(root)/floor-save")
        return Floor(output: output, saveFiles: filesPerSave, saveFileBytes: median, saveMilliseconds: save)
    }

    var json: JSONValue {
        let save = BenchStatistics(saveMilliseconds)
        return .object(JSONObject([
            ("cold_output", .object(JSONObject([
                ("folders", .integer(output.folders)),
                ("files", .integer(output.files)),
                ("bytes", .integer(output.bytes)),
                ("written_s", BenchFormat.number(output.writeSeconds)),
                ("synced_s", BenchFormat.number(output.syncedSeconds)),
                ("user_s", BenchFormat.number(output.userSeconds)),
                ("system_s", BenchFormat.number(output.systemSeconds)),
            ]))),
            ("save_barrier", .object(JSONObject([
                ("rounds", .integer(saveMilliseconds.count)),
                ("files", .integer(saveFiles)),
                ("file_bytes", .integer(saveFileBytes)),
                ("p50_ms", BenchFormat.number(save.percentile(50))),
                ("p90_ms", BenchFormat.number(save.percentile(90))),
                ("p99_ms", BenchFormat.number(save.percentile(99))),
            ]))),
        ]))
    }

    static let header = ["layout/pages", "files", "MiB", "folders", "written s", "synced s", "cpu s", "save barrier p50 / p90 ms"]

    var row: [String] {
        let save = BenchStatistics(saveMilliseconds)
        return ["\(output.files)", BenchFormat.text(Double(output.bytes) / 1_048_576, decimals: 0), "\(output.folders)",
                BenchFormat.text(output.writeSeconds, decimals: 2), BenchFormat.text(output.syncedSeconds, decimals: 2),
                BenchFormat.text(output.userSeconds + output.systemSeconds, decimals: 2),
                "\(BenchFormat.text(save.percentile(50), decimals: 2)) / \(BenchFormat.text(save.percentile(90), decimals: 2)) (\(saveFiles) x \(saveFileBytes) B)"]
    }
}
