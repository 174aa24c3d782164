import Foundation

/// The machine's CPU time as `/proc/stat` counts it, over all cores. On a virtual machine,
/// `steal` is time the host ran something else while this guest had work: the slow stretches
/// of a shared VM (a third slower for minutes, bench/RESULTS.md) show here, not in Quire's figures.
struct BenchMachineCPU {
    /// Time the cores were busy or kept from being so: user, nice, system, irq, softirq, steal.
    var busy: UInt64
    var steal: UInt64

    /// Nil where there is no `/proc/stat` or its first line is not the `cpu` total.
    static var now: BenchMachineCPU? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first, line.hasPrefix("cpu ")
        else { return nil }
        // cpu user nice system idle iowait irq softirq steal ...
        let fields = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard fields.count >= 8 else { return nil }
        return BenchMachineCPU(busy: fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7], steal: fields[7])
    }

    /// The share of busy time since `earlier` that the host took, in percent.
    func stolenPercent(since earlier: BenchMachineCPU) -> Double? {
        guard busy > earlier.busy else { return nil }
        return 100 * Double(steal - earlier.steal) / Double(busy - earlier.busy)
    }
}
