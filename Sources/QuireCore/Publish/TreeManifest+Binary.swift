import QuireModel

// A tree manifest in the restart file (`BinaryWriter`), as a file index holds it: its id, its
// parts (each a manifest listed whole) or its entries, no bytes. A restarted watcher takes the
// newest version's index from there instead of parsing every manifest of the version again
// (`FileIndex.init(reading:layout:)`): the ids name the same bytes, which never change.
extension TreeManifest {
    func write(to writer: inout BinaryWriter) {
        writer.string(id)
        writer.array(parts) { $1.write(to: &$0) }
        writer.array(listed) { $1.write(to: &$0) }
    }

    convenience init(reading reader: inout BinaryReader) throws(BinaryReader.Malformed) {
        typealias Malformed = BinaryReader.Malformed
        let id = try reader.string()
        let parts = try reader.array { reader throws(Malformed) in try TreeManifest(reading: &reader) }
        var kinds = FileKinds()
        let entries = try reader.array { reader throws(Malformed) in try Entry(reading: &reader, kinds: &kinds) }
        guard parts.isEmpty || entries.isEmpty else { throw Malformed() }
        self.init(entries: entries, stored: [], parts: parts, id: id)
    }
}

extension TreeManifest.Entry {
    func write(to writer: inout BinaryWriter) {
        writer.string(name)
        switch kind {
        case .file(let file):
            writer.bool(true)
            file.sha256.write(to: &writer)
            writer.int(file.size)
            file.inputDigest.write(to: &writer)
            writer.optional(file.metadata) { $1.write(to: &$0) }
        case .tree(let id):
            writer.bool(false)
            writer.string(id)
        }
    }

    init(reading reader: inout BinaryReader, kinds: inout TreeManifest.FileKinds) throws(BinaryReader.Malformed) {
        let name = try reader.string()
        guard try reader.bool() else {
            self.init(name: name, kind: .tree(try reader.string()))
            return
        }
        let (sha256, size, inputDigest) = (try Digest(reading: &reader), try reader.int(), try Digest(reading: &reader))
        let metadata = try reader.optional { reader throws(BinaryReader.Malformed) in try JSONValue(reading: &reader) }
        self.init(name: name, kind: kinds.kind(of: PublishedFile(sha256: sha256, size: size, inputDigest: inputDigest, metadata: metadata)))
    }
}
