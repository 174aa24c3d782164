import Glibc

/// Where `quire push` copies a site: a folder (a mounted disk), an rsync daemon
/// (`rsync://host[:port]/module/path`) or a host over ssh (`[user@]host:path`). Each names a
/// dist folder: the site goes to `<destination>/<site>/`, laid out as on the origin.
public struct ReplicaDestination: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable { case folder, daemon, ssh }

    public let kind: Kind
    /// As given, without trailing slashes.
    public let description: String

    public init(_ text: String) throws(StoreError) {
        var trimmed = text
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard !trimmed.isEmpty, !trimmed.utf8.contains(0), !trimmed.contains("\n") else {
            throw StoreError("'\(text)' is not a push destination: give a folder, rsync://host/module/path or host:path")
        }
        description = trimmed
        if trimmed.hasPrefix("rsync://") {
            guard trimmed.dropFirst("rsync://".count).contains("/") else {
                throw StoreError("'\(text)' names no rsync module: write rsync://host[:port]/module[/path]")
            }
            kind = .daemon
        } else if let colon = trimmed.firstIndex(of: ":"), !trimmed[..<colon].contains("/"), colon != trimmed.startIndex {
            // rsync's own rule: a colon before any slash means a remote shell host.
            kind = .ssh
        } else {
            kind = .folder
        }
    }

    /// The rsync argument for `path` inside the site's folder on this destination.
    func rsyncPath(site: String, _ path: String = "") -> String {
        rsyncRoot + site + (path.isEmpty ? "/" : "/" + path)
    }

    /// The destination itself, as an rsync argument (a relative folder cannot pass for a host).
    var rsyncRoot: String {
        (kind == .folder && !description.hasPrefix("/") && !description.hasPrefix(".") ? "./" + description : description) + "/"
    }

    /// Whether a folder destination is there at all (a disk that is not mounted is unreachable,
    /// and pushing must not create an empty folder in its mount point).
    var isMissingFolder: Bool {
        guard kind == .folder else { return false }
        var info = stat()
        return stat(description, &info) != 0 || info.st_mode & S_IFMT != S_IFDIR
    }
}
