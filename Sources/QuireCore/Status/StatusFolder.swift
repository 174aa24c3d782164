/// `dist/<site>/status/`: the files that say how the site's builds and pushes went. Mutable and
/// outside the versions, so written without the publish lock, each file replaced atomically.
struct StatusFolder {
    let layout: SiteLayout

    /// Replaces `status/status.json` (and any other status files) atomically, in name order.
    func write(_ files: [String: [UInt8]]) throws(StoreError) {
        for (name, bytes) in files.sorted(by: { $0.key < $1.key }) { try write(name, bytes) }
    }

    /// Replaces the file `name` atomically with `bytes`.
    func write(_ name: String, _ bytes: [UInt8]) throws(StoreError) {
        try FileSystem.replaceFile(path(of: name), bytes)
    }

    /// Replaces the file `name` atomically with what `body` writes as it makes it.
    func write(_ name: String, writing body: (FileOutput) throws(StoreError) -> Void) throws(StoreError) {
        try FileSystem.replaceFile(path(of: name), writing: body)
    }

    /// Where the file `name` goes, its folders made.
    private func path(of name: String) throws(StoreError) -> String {
        let components = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            throw StoreError("cannot write the status file '\(name)': empty, '.' and '..' path segments are not allowed")
        }
        var folder = layout.status
        for component in components.dropLast() {
            folder += "/" + component
            try FileSystem.makeDirectory(folder, ignoringExisting: true)
        }
        return layout.status + "/" + name
    }
}
