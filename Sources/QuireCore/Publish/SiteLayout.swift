/// Where everything of one site lives under `dist/<site>/` (ARCHITECTURE.md, "The published layout").
struct SiteLayout: Sendable {
    /// `dist/<site>`.
    let root: String

    var current: String { root + "/current" }
    var versions: String { root + "/versions" }
    var trees: String { root + "/trees" }
    var staging: String { root + "/staging" }
    var status: String { root + "/status" }
    var state: String { root + "/state" }
    var lock: String { state + "/lock" }
    var pin: String { state + "/pin" }
    var history: String { state + "/history.jsonl" }
    var boot: String { state + "/boot" }

    func version(_ id: VersionID) -> String { versions + "/" + id.description }
    func versionManifest(_ id: VersionID) -> String { version(id) + "/manifest.json" }
    func buildRecord(_ id: VersionID) -> String { version(id) + "/build.json" }
    func tree(_ id: String) -> String { trees + "/" + id }
    func treeManifest(_ id: String) -> String { trees + "/" + id + ".json" }

    /// The relative link targets that make the layout relocatable (the whole `dist/` can move).
    static func currentTarget(_ id: VersionID) -> String { "versions/" + id.description }
    static func folderTarget(_ tree: String) -> String { "../../trees/" + tree }
    static func subtreeTarget(_ tree: String) -> String { "../" + tree }

    /// The store's own folders, created on open.
    var folders: [String] { [root, versions, trees, staging, status, state] }
}
