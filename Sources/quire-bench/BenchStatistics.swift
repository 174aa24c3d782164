import Foundation
import QuireModel

/// Percentiles by the nearest-rank method: p99 of 200 samples is the 198th smallest.
struct BenchStatistics {
    let sorted: [Double]

    init(_ samples: [Double]) { sorted = samples.sorted() }

    func percentile(_ p: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    var mean: Double? { sorted.isEmpty ? nil : sorted.reduce(0, +) / Double(sorted.count) }
    var maximum: Double? { sorted.last }
    var minimum: Double? { sorted.first }
}

extension BenchWatcher.Latency {
    var json: JSONValue {
        let statistics = BenchStatistics(milliseconds)
        return .object(
            JSONObject([
                ("saves", .integer(milliseconds.count + timeouts)),
                ("published", .integer(milliseconds.count)),
                ("p50_ms", BenchFormat.number(statistics.percentile(50))),
                ("p90_ms", BenchFormat.number(statistics.percentile(90))),
                ("p99_ms", BenchFormat.number(statistics.percentile(99))),
                ("min_ms", BenchFormat.number(statistics.minimum)),
                ("max_ms", BenchFormat.number(statistics.maximum)),
                ("mean_ms", BenchFormat.number(statistics.mean)),
                ("reads", .integer(reads)),
                ("torn_reads", .integer(tornReads)),
                ("saves_with_torn_reads", .integer(savesWithTornReads)),
                ("missing_reads", .integer(missingReads)),
                ("timeouts", .integer(timeouts)),
                ("lost", .integer(lost)),
                ("stopped_by_time_budget", .bool(stoppedByBudget)),
                // In save order: whether slow saves come together (the machine) or alone shows here.
                ("each_ms", .array(milliseconds.map { BenchFormat.number($0) })),
            ]))
    }
}

extension BenchWatcher.Burst {
    var json: JSONValue {
        .object(
            JSONObject([
                ("files", .integer(files)),
                ("write_ms", BenchFormat.number(writeMilliseconds)),
                ("versions_published", .integer(versionsPublished)),
                ("version_number_delta", .integer(versionNumberDelta)),
                ("last_publish_after_last_write_ms", BenchFormat.number(lastPublishAfterLastWriteMilliseconds)),
                ("all_visible_after_last_write_ms", BenchFormat.number(allVisibleAfterLastWriteMilliseconds)),
                ("lost", .integer(lost)),
            ]))
    }
}

enum BenchFormat {
    /// Two decimals in JSON, null when there is no figure.
    static func number(_ value: Double?) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        return .number((value * 100).rounded() / 100)
    }

    static func text(_ value: Double?, decimals: Int = 1) -> String {
        guard let value, value.isFinite else { return "-" }
        return String(format: "%.\(decimals)f", value)
    }

    /// "3.2%" from a JSON number; nil from null.
    static func percent(_ value: JSONValue) -> String? {
        switch value {
        case .number(let number): return text(number) + "%"
        case .integer(let number): return "\(number)%"
        default: return nil
        }
    }

    static func mebibytes(_ kilobytes: Int) -> Double { Double(kilobytes) / 1024 }

    /// Left-aligned first column, right-aligned figures.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return index == 0 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        return ([line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")] + rows.map(line)).joined(
            separator: "\n")
    }
}
