import Foundation
import QuireCommandLine
import QuireCore

/// The sites under `--pages` (`SiteFolders`: a folder whose name breaks the id rule is reported
/// and left out), or just `--site`.
enum Sites {
    static func names(pages: String, only site: String?) throws(CommandFailure) -> [String] {
        try folders(pages: pages, only: site).names
    }

    /// The sites, and the folders refused (each reported on stderr as it is found).
    static func folders(pages: String, only site: String?, reportRefused: Bool = true) throws(CommandFailure) -> SiteFolders {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: pages, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure(.operational, "\(pages): no such folder: give the pages folder with --pages DIR")
        }
        if let site {
            guard Identifier.isValid(site) else { throw CommandFailure(.usage, "'\(site)' is not a site name: \(Identifier.rule)") }
            guard FileManager.default.fileExists(atPath: "\(pages)/\(site)", isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CommandFailure(.usage, "no site '\(site)' in \(pages)/")
            }
            return SiteFolders(names: [site])
        }
        let folders = SiteFolders(pages: pages)
        if reportRefused { for diagnostic in folders.refused { Console.shared.diagnostic(diagnostic) } }
        return folders
    }
}
