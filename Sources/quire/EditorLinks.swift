import Foundation
import QuireCommandLine

/// What `quire watch --serve` tells editors to open: each site's status page, once its files exist
/// (the watcher writes status in the background), and one preview, once `status.json` lists one
/// that is on disk: after the first build, or after the first that published previews.
final class EditorLinks: @unchecked Sendable {
    private let dist: String
    private let editors: String
    private let previews: Bool
    private let lock = NSLock()
    private var statusTold: Set<String> = []
    private var previewTold: Set<String> = []
    /// Per site being looked at, until when (each build gives it another minute).
    private var lookingUntil: [String: Date] = [:]

    init(dist: String, editors: String, previews: Bool) {
        self.dist = dist
        self.editors = editors
        self.previews = previews
    }

    /// After a build of `site`: looks for what to tell, unless all of it was told.
    func built(_ site: String) {
        let start = lock.withLock {
            guard !previewTold.contains(site) else { return false }
            defer { lookingUntil[site] = Date().addingTimeInterval(60) }
            return lookingUntil[site] == nil
        }
        if start { look(site, statusSeen: nil) }
    }

    /// One look, then another shortly unless all is told or the time is up. `status.json` is read
    /// again only when it changed (it lists every page: megabytes on a large site).
    private func look(_ site: String, statusSeen: [Int]?) {
        let statusFolder = "\(dist)/\(site)/status"
        var seen = statusSeen
        var info = stat()
        if FileManager.default.fileExists(atPath: "\(statusFolder)/index.html"), stat("\(statusFolder)/status.json", &info) == 0 {
            if lock.withLock({ statusTold.insert(site).inserted }) {
                Console.shared.error("quire: \(site): status page \(editors)/\(site)/status/")
            }
            let stamp = [Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
            if !previews {
                finish(site)
                return
            }
            if stamp != seen {
                seen = stamp
                if let preview = Self.somePreview(statusFolder: statusFolder) {
                    Console.shared.error("quire: \(site): preview \(editors)/\(site)/\(preview)")
                    finish(site)
                    return
                }
            }
        }
        let goOn = lock.withLock {
            guard let until = lookingUntil[site], Date() < until else {
                lookingUntil[site] = nil
                return false
            }
            return true
        }
        let next = seen
        if goOn { DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { self.look(site, statusSeen: next) } }
    }

    private func finish(_ site: String) {
        lock.withLock {
            previewTold.insert(site)
            lookingUntil[site] = nil
        }
    }

    /// A preview `status.json` lists (preferring a top-level page, in the first locale), as a
    /// path under the site, if its file exists.
    private static func somePreview(statusFolder: String) -> String? {
        guard let data = FileManager.default.contents(atPath: "\(statusFolder)/status.json"),
            let status = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let pages = status["pages"] as? [String: Any]
        else { return nil }
        let ids = pages.keys.sorted { ($0.contains("/") ? 1 : 0, $0) < ($1.contains("/") ? 1 : 0, $1) }
        for id in ids {
            guard let page = pages[id] as? [String: Any], let previews = page["preview"] as? [String: String] else { continue }
            let locale = (page["locales"] as? [String])?.first { previews[$0] != nil } ?? previews.keys.sorted().first
            guard let locale, let relative = previews[locale], relative.hasPrefix("../") else { continue }
            let path = String(relative.dropFirst(3))
            if FileManager.default.fileExists(atPath: "\(statusFolder)/../\(path)") { return path }
        }
        return nil
    }
}
