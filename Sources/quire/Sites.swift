import Foundation
import QuireCommandLine
import QuireCore

/// The sites under `--pages`: every folder that is not hidden, or just `--site`.
enum Sites {
    static func names(pages: String, only site: String?) throws(CommandFailure) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: pages, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure(.operational, "\(pages): no such folder: give the pages folder with --pages DIR")
        }
        if let site {
            guard Identifier.isValid(site) else { throw CommandFailure(.usage, "'\(site)' is not a site name: \(Identifier.rule)") }
            guard FileManager.default.fileExists(atPath: "\(pages)/\(site)", isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CommandFailure(.usage, "no site '\(site)' in \(pages)/")
            }
            return [site]
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: pages)) ?? []).sorted().filter { name in
            guard !EditorTempFiles.isIgnored(name) else { return false }
            var info = stat()
            return lstat("\(pages)/\(name)", &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
        }
        return names
    }
}
