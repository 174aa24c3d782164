import Glibc
import QuireModel

/// Copies one version into a plain folder (no links, no sharing) whose manifest lists every file
/// directly, for hosts that cannot follow symbolic links or for archiving. Written beside the
/// destination and renamed into place, so the destination is complete or absent.
struct Exporter {
    let layout: SiteLayout

    func export(_ manifest: VersionManifest, index: FileIndex, to destination: String) throws(StoreError) {
        guard !FileSystem.exists(destination) else {
            throw StoreError("cannot export to '\(destination)': it exists; name a new folder")
        }
        let temporary = destination + ".tmp-\(getpid())"
        try? FileSystem.removeTree(temporary)
        do {
            try FileSystem.makeDirectory(temporary)
            var listed = JSONObject()
            for (path, location) in index.locations.sorted(by: { $0.path.utf8Precedes($1.path) }) {
                var folder = temporary
                for component in path.split(separator: "/").dropLast() {
                    folder += "/" + component
                    try FileSystem.makeDirectory(folder, ignoringExisting: true)
                }
                try FileSystem.createFile(temporary + "/" + path, FileSystem.readFile(location.storedPath))
                listed[path] = .object(location.file.manifestFields)
            }
            var object = manifest.header
            object["files"] = .object(listed)
            try FileSystem.createFile(temporary + "/manifest.json", JSONWriter(pretty: true).bytes(.object(object)))
            let build = layout.buildRecord(manifest.version)
            if FileSystem.exists(build) { try FileSystem.createFile(temporary + "/build.json", FileSystem.readFile(build)) }
            try FileSystem.syncFileSystem(containing: temporary)
            try FileSystem.rename(temporary, to: destination)
        } catch {
            try? FileSystem.removeTree(temporary)
            throw error
        }
    }
}
