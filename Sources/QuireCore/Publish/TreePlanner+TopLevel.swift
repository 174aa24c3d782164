import Dispatch

extension TreePlanner {
    /// Groups beyond this many are found by name in a dictionary; the first are looked through.
    static let scannedTopLevelFolders = 8
    /// Files grouped on one thread at a time: reading 60,000 paths scattered in memory is mostly
    /// waiting for it, and the cores wait side by side.
    static let filesPerGroupingChunk = 8192

    /// The positions in `files` of each top-level folder's files, in order, the folders in the
    /// order they first appear (a path outside any folder is a group of its own, refused when
    /// checked). Done before planning spreads over the cores, so it hashes nothing for a usual
    /// site: its few top-level folders (a locale each, `assets`, `preview`) are compared by length
    /// and bytes, and a position costs no reference count where a file did.
    static func groupByTopLevel(_ files: [OutputFile]) -> [(name: String, members: [Int])] {
        let chunkCount = (files.count + filesPerGroupingChunk - 1) / filesPerGroupingChunk
        let chunks = ResultSlots<[(name: String, members: [Int])]>(count: chunkCount)
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            let start = chunk * filesPerGroupingChunk
            chunks.set(chunk, group(files, start..<min(start + filesPerGroupingChunk, files.count)))
        }
        var groups: [(name: String, members: [Int])] = []
        var indexByName: [String: Int] = [:]
        for chunk in chunks.values {
            for group in chunk ?? [] {
                if let index = indexByName[group.name] {
                    groups[index].members += group.members
                } else {
                    indexByName[group.name] = groups.count
                    groups.append(group)
                }
            }
        }
        return groups
    }

    private static func group(_ files: [OutputFile], _ positions: Range<Int>) -> [(name: String, members: [Int])] {
        var groups: [(name: String, members: [Int])] = []
        var beyondScanned: [String: Int] = [:]
        for position in positions {
            let path = files[position].path
            let length = path.utf8Offset(of: UInt8(ascii: "/")) ?? path.utf8.count
            var found: Int?
            for index in 0..<min(groups.count, scannedTopLevelFolders)
            where groups[index].name.utf8.count == length && path.utf8Matches(groups[index].name, count: length, at: 0) {
                found = index
                break
            }
            if found == nil, groups.count > scannedTopLevelFolders { found = beyondScanned[path.utf8Prefix(length)] }
            if found == nil {
                found = groups.count
                groups.append((path.utf8Prefix(length), []))
                if groups.count > scannedTopLevelFolders { beyondScanned[groups[groups.count - 1].name] = groups.count - 1 }
            }
            if let found { groups[found].members.append(position) }
        }
        return groups
    }
}
