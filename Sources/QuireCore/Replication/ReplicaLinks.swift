/// Symbolic links as a destination holds them, read back over the transport that wrote them
/// (`rsync --list-only -l`): a push says "current is" only for a link read back naming it.
///
/// An rsync daemon that munges links (`munge symlinks`, its default without chroot) stores
/// `/rsyncd-munged/<target>` and strips the prefix again when it lists or sends the link, so the
/// target it shows looks right. The size it lists is the stored link's own (`lstat`), so a link
/// holds what was sent only when that size is the shown target's length.
struct ReplicaLinks {
    struct Link: Equatable {
        let target: String
        /// The length of what the destination stored.
        let storedBytes: Int
        var isUnchanged: Bool { storedBytes == target.utf8.count }
    }

    /// Links by path, as the listing names them.
    private(set) var links: [String: Link] = [:]
    /// Every path the listing names (links, folders, files).
    private(set) var names: Set<String> = []

    /// Parses `--list-only` lines: `lrwxrwxrwx  26 2026/12/04 12:25:38 current -> versions/v000001`.
    init(listing: String) {
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: true)
            guard fields.count == 5, let kind = fields[0].first, "dl-".contains(kind) else { continue }
            let rest = fields[4]
            guard kind == "l", let arrow = rest.range(of: " -> ") else {
                names.insert(String(rest))
                continue
            }
            let name = String(rest[..<arrow.lowerBound])
            names.insert(name)
            // rsync writes sizes with thousands separators.
            let bytes = Int(String(fields[1].filter(\.isNumber))) ?? -1
            links[name] = Link(target: String(rest[arrow.upperBound...]), storedBytes: bytes)
        }
    }

    /// Why `path` does not hold a link to `target`; nil when it does.
    func problem(_ path: String, expecting target: String, on destination: ReplicaDestination) -> String? {
        guard let link = links[path] else {
            return names.contains(path) ? "`\(path)` is there but not a symbolic link" : "`\(path)` is not there after the push"
        }
        guard link.isUnchanged else {
            return "it changes the symbolic links it receives (`\(path)` holds \(link.storedBytes) bytes for '\(link.target)'): "
                + Self.fix(destination)
        }
        guard link.target == target else { return "`\(path)` reads '\(link.target)', not '\(target)'" }
        return nil
    }

    /// What makes a destination keep links as they are sent.
    static func fix(_ destination: ReplicaDestination) -> String {
        switch destination.kind {
        case .daemon: "set `munge symlinks = no` in the module's section of rsyncd.conf"
        case .ssh, .folder: "the receiving rsync must keep links as they are (no --munge-links)"
        }
    }
}
