import Foundation

/// What the disk allows, with none of Quire's work: a published tree's files written again as
/// they are (same count, sizes and folders) on every core through the store's own primitives,
/// then one `syncfs`; and a save's barrier alone (a few files, one `syncfs`, a symbolic link
/// swapped). `quire-bench` prints these next to the cold build and the saves, so a missed
/// target says how far it is from the machine and not only from the number.
package enum WriteFloor {
    package struct Figures: Sendable {
        package var folders = 0
        package var files = 0
        package var bytes = 0
        /// Until every file is written and closed.
        package var writeSeconds: Double = 0
        /// Until the `syncfs` after them returned.
        package var syncedSeconds: Double = 0
        /// CPU of this whole process over the measure (it does nothing else meanwhile).
        package var userSeconds: Double = 0
        package var systemSeconds: Double = 0
    }

    /// The regular files under `tree` (symbolic links are not followed), grouped by folder:
    /// each folder's file sizes. Empty folders are left out.
    package static func shape(of tree: String) throws(StoreError) -> [[Int]] {
        Dictionary(grouping: try FileSystem.regularFiles(under: tree), by: \.folder).values.map { $0.map(\.size) }
    }

    /// Writes files of `shape`'s sizes into new folders under `scratch` (which must not exist),
    /// folders spread over every core as a cold build's are, then syncs the file system.
    package static func write(_ shape: [[Int]], into scratch: String) throws(StoreError) -> Figures {
        try FileSystem.makeDirectory(scratch)
        let largest = shape.lazy.flatMap { $0 }.max() ?? 0
        let filler = [UInt8](repeating: UInt8(ascii: "x"), count: largest)
        let usage = ResourceUsage.ofThisProcess
        let started = DispatchTime.now().uptimeNanoseconds
        try FirstFailure.concurrentPerform(iterations: shape.count) { index throws(StoreError) in
            let path = "\(scratch)/\(index)"
            try FileSystem.makeDirectory(path)
            let folder = try DirectoryHandle(path)
            for (number, size) in shape[index].enumerated() {
                try folder.createFile("\(number)", Array(filler[0..<size]))
            }
        }
        let written = DispatchTime.now().uptimeNanoseconds
        try FileSystem.syncFileSystem(containing: scratch)
        let synced = DispatchTime.now().uptimeNanoseconds
        let spent = ResourceUsage.ofThisProcess.minus(usage)
        return Figures(
            folders: shape.count, files: shape.reduce(0) { $0 + $1.count }, bytes: shape.reduce(0) { $0 + $1.reduce(0, +) },
            writeSeconds: Double(written - started) / 1e9, syncedSeconds: Double(synced - started) / 1e9,
            userSeconds: spent.user, systemSeconds: spent.system)
    }

    /// `rounds` times: `sizes` written as new files in a new folder under `scratch`, one
    /// `syncfs`, then a symbolic link beside them swapped to that folder (`rename`), as a save
    /// publishes; each round's milliseconds. `scratch` must not exist.
    package static func saveBarrier(sizes: [Int], rounds: Int, in scratch: String) throws(StoreError) -> [Double] {
        try FileSystem.makeDirectory(scratch)
        let filler = [UInt8](repeating: UInt8(ascii: "x"), count: sizes.max() ?? 0)
        var milliseconds: [Double] = []
        for round in 0..<rounds {
            let started = DispatchTime.now().uptimeNanoseconds
            let path = "\(scratch)/\(round)"
            try FileSystem.makeDirectory(path)
            let folder = try DirectoryHandle(path)
            for (number, size) in sizes.enumerated() { try folder.createFile("\(number)", Array(filler[0..<size])) }
            try FileSystem.syncFileSystem(containing: scratch)
            let link = "\(scratch)/current.tmp"
            try FileSystem.symbolicLink("\(round)", at: link)
            try FileSystem.rename(link, to: "\(scratch)/current")
            milliseconds.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        }
        return milliseconds
    }
}
