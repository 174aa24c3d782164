import Glibc

/// Runs the system's rsync: every transfer to a replica goes through it (no protocol of our own).
struct Rsync {
    /// What a run of rsync ended with.
    struct Outcome {
        var status: Int32
        var output: String
        var succeeded: Bool { status == 0 }
        /// Exit code 23 (`Rsync.partialTransfer`): some files could not be read, e.g. a folder that is not there.
        /// Exit code 24: source files vanished while rsync read them.
        var vanished: Bool { status == 24 }
        /// rsync's exit codes for a destination it could not talk to: 5 (protocol start),
        /// 10 (socket), 12 (data stream), 30 and 35 (timeouts), 255 (ssh); and a folder that is not there.
        var isUnreachable: Bool { [5, 10, 12, 30, 35, 255].contains(status) }
        var message: String {
            let lines = output.split(separator: "\n").filter { !$0.hasPrefix("rsync error:") }.prefix(3)
            return "rsync exit status \(status)" + (lines.isEmpty ? "" : ": " + lines.joined(separator: "; "))
                + (fix.map { "; " + $0 } ?? "")
        }
        /// What the operator can do about the refusals rsync words as messages.
        var fix: String? {
            if output.contains("module is read only") { return "set `read only = no` in the module's section of rsyncd.conf" }
            if output.contains("Permission denied") { return "give the replica's user write access to its dist folder" }
            return nil
        }
    }

    static let partialTransfer: Int32 = 23
    static let executable: String? = ["/usr/bin/rsync", "/bin/rsync", "/usr/local/bin/rsync"].first { access($0, X_OK) == 0 }
    /// Seconds without progress before rsync gives up on a destination.
    static let ioTimeout = 60

    let destination: ReplicaDestination
    /// The push lock, held by every rsync too: one left running by a push killed mid-step
    /// finishes that step before the next push starts.
    let lock: Int32?

    /// Options every run gets: no ownership (the replica's user owns its files), permissions as
    /// the origin sets them (readable by the web server), no folder times (folders are not served).
    var common: [String] {
        var options = ["--timeout=\(Self.ioTimeout)", "--chmod=D755,F644", "--omit-dir-times"]
        switch destination.kind {
        case .daemon: options.append("--contimeout=10")
        case .ssh: options += ["-e", "ssh -o BatchMode=yes -o ConnectTimeout=10"]
        case .folder: break
        }
        return options
    }

    func run(_ arguments: [String]) throws(StoreError) -> Outcome {
        guard let executable = Self.executable else {
            throw StoreError("quire push needs rsync: install it (apt-get install rsync)")
        }
        do {
            let result = try ChildProcess.run(
                executable: executable, arguments: common + arguments, mergingStandardError: true,
                sharing: lock)
            let status: Int32
            switch result.status {
            case .exited(let code): status = code
            case .signaled(let signal): status = 128 + signal
            }
            return Outcome(status: status, output: String(decoding: result.stdout, as: UTF8.self))
        } catch {
            throw StoreError("cannot run rsync: \(error.reason)")
        }
    }

    /// Whether a line of `--itemize-changes` output describes an item (`>f+++++++++ path`), not a message.
    static func isItemized(_ line: Substring) -> Bool {
        let characters = Array(line.prefix(12))
        return characters.count == 12 && "<>ch.*".contains(characters[0]) && "fdLDS".contains(characters[1]) && characters[11] == " "
    }

    /// The last field of each `--list-only` line, without `.`.
    static func names(_ listing: String) -> [String] {
        listing.split(separator: "\n").compactMap { line in
            guard let name = line.split(separator: " ").last, name != "." else { return nil }
            return String(name)
        }
    }
}
