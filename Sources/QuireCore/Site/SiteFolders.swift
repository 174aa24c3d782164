import Foundation

/// The sites under a pages folder: every folder whose name follows the id rule. A folder whose
/// name breaks it is reported and left out, so that nothing of its name reaches what other
/// programs read (nginx includes every site's TTL map, whose keys begin with the site's name).
public struct SiteFolders: Sendable {
    public var names: [String] = []
    /// One error per folder left out.
    public var refused: [Diagnostic] = []
    /// The names of the folders left out, as they are on disk.
    public var refusedNames: [String] = []

    public init(names: [String]) { self.names = names }

    /// `pages` as the user named it. Hidden entries and editors' temporary names are skipped silently.
    public init(pages: String) {
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: pages)) ?? []).sorted()
        for name in entries where !EditorTempFiles.isIgnored(name) {
            var info = stat()
            guard lstat("\(pages)/\(name)", &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { continue }
            if Identifier.isValid(name) {
                names.append(name)
            } else {
                refused.append(.error("\(pages)/\(Self.printable(name))", Self.problem(name)))
                refusedNames.append(name)
            }
        }
    }

    public static func problem(_ name: String) -> String {
        "\(Self.printable(name).debugDescription) is not a site name: \(Identifier.rule); rename the folder (the site is not published)"
    }

    /// `name` with control characters and other invisible scalars written as escapes, so a
    /// hostile folder name cannot rewrite the terminal or a log line.
    public static func printable(_ name: String) -> String {
        name.unicodeScalars.map { scalar -> String in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate, .privateUse:
                return scalar.escaped(asASCII: true)
            default:
                return String(scalar)
            }
        }.joined()
    }
}
