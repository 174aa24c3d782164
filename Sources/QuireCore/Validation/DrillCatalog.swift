/// A site's drill catalog (`drill_catalog: drills.yaml` in site.yaml, a file in the site folder):
/// a list of drill ids, or a mapping of drill id to title. `drill_carousel.drill_ids` are
/// checked against it; without one they are not checked (one warning per site).
enum DrillCatalog {
    /// The ids a parsed catalog file names; problems go to `diagnostics`.
    static func read(_ root: SourceNode, file: String) -> (Set<String>, [Diagnostic]) {
        var reader = SourceNodeReader(file: file)
        var ids: [String] = []
        if let members = root.members {
            for member in members {
                if member.value.string == nil, member.value.members == nil {
                    reader.error(
                        member.value, member.key, "must be the drill's title (text) or a mapping, found \(member.value.kindDescription)")
                }
                ids.append(member.key)
            }
        } else if root.array != nil {
            ids = reader.stringList(root, "") ?? []
        } else {
            reader.error(
                root, "", "a drill catalog must be a list of drill ids or a mapping of drill id to title, found \(root.kindDescription)")
        }
        return (Set(ids), reader.diagnostics)
    }

    /// The catalog's path inside the site folder, refused when it would leave the folder.
    static func relativePath(_ name: String) -> String? {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.hasPrefix("/"), !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return nil }
        return name
    }
}
