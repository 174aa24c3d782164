/// `state/boot`: the boot of the machine in which the store last checked what a system crash can
/// leave behind (`StoreRecovery.checkAfterRestart`). A process stopped by a signal loses nothing the
/// kernel has taken, so only a new boot can hold a publish that was half on disk. Linux names
/// each boot (`/proc/sys/kernel/random/boot_id`); where it does not, every first lock checks.
struct BootRecord {
    let path: String

    private static let source = "/proc/sys/kernel/random/boot_id"
    static let machineBoot: [UInt8]? = {
        guard let bytes = try? FileSystem.readFile(source), !bytes.isEmpty else { return nil }
        return bytes
    }()

    /// Whether the store was checked in this boot already.
    var isThisBoot: Bool {
        guard let boot = Self.machineBoot, FileSystem.exists(path) else { return false }
        return (try? FileSystem.readFile(path)) == boot
    }

    func record() throws(StoreError) {
        guard let boot = Self.machineBoot else { return }
        try FileSystem.replaceFile(path, boot, durable: true)
    }
}
