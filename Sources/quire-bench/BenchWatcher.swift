import Foundation

/// A real `quire watch` in a child process, observed from outside as an app or a web server
/// would: save a page source (write a hidden temp file, rename it over the page), then read
/// `dist/<site>/current/<locale>/<page>.json` until the new text is there.
final class BenchWatcher {
    struct Latency {
        var milliseconds: [Double] = []
        /// Reads that were not complete JSON (a half-written or mixed file).
        var tornReads = 0
        /// Saves during which at least one read was torn.
        var savesWithTornReads = 0
        /// Reads that found no file where a published page should be.
        var missingReads = 0
        /// Saves whose text never showed up within the timeout.
        var timeouts = 0
        /// Pages that, once the series was over, did not hold their last save's text (given up
        /// to the timeout): a save never published, or undone by a later version.
        var lost = 0
        var reads = 0
        /// The save loop ran out of its time budget before `count` saves.
        var stoppedByBudget = false
    }

    struct Burst {
        var files = 0
        var writeMilliseconds: Double = 0
        /// Publish lines printed by the watcher from the first write on.
        var versionsPublished = 0
        /// Difference of the newest version number in `versions/`.
        var versionNumberDelta = 0
        /// From the last write to the last publish line.
        var lastPublishAfterLastWriteMilliseconds: Double?
        /// From the last write until every page showed its final text.
        var allVisibleAfterLastWriteMilliseconds: Double?
        /// Pages whose final text was not published.
        var lost = 0
    }

    let site: SyntheticSite
    let pagesRoot: String
    let distRoot: String
    let process: BenchProcess
    /// A tag that makes every token of this run unique, so no earlier content can match.
    let runTag: String
    var initialPublishSeconds: Double = 0
    /// How long the watcher kept working after its first publish (status files, spare folders)
    /// before it went idle and the saves began.
    var settleSeconds: Double = 0

    init(site: SyntheticSite, pagesRoot: String, distRoot: String, previews: Bool, log: String) throws {
        self.site = site
        self.pagesRoot = pagesRoot
        self.distRoot = distRoot
        runTag = "q\(getpid())t\(BenchClock.now % 1_000_000_007)"
        var arguments = ["watch", "--pages", pagesRoot, "--dist", distRoot]
        if !previews { arguments.append("--no-preview") }
        process = try BenchProcess(BenchProcess.quireExecutable, arguments, stderrLog: log, captureStderr: true)
    }

    /// Waits for the watcher's first publish (the whole site) and for page 0 to be readable.
    func waitForFirstPublish(timeout: Double) throws {
        let deadline = process.started + UInt64(timeout * 1e9)
        let firstPage = site.publishedPath(distRoot: distRoot, page: 0)
        while BenchClock.now < deadline {
            if process.stderrLines.contains(where: { Self.isPublishLine($0.text) }) && access(firstPage, R_OK) == 0 {
                initialPublishSeconds = Double(BenchClock.now - process.started) / 1e9
                // The watcher may add its watches after the first publish: wait for it to say so.
                let watching = BenchClock.now + 5_000_000_000
                while BenchClock.now < watching && !process.stderrLines.contains(where: { $0.text.hasPrefix("quire: watching") }) {
                    usleep(2_000)
                }
                // An editor's save lands on an idle watcher: the first ones would otherwise
                // share the cores with the status files and spare folders of the whole site.
                settleSeconds = process.waitUntilIdle()
                return
            }
            if process.stderrLines.contains(where: { $0.text.hasPrefix("quire: error") }) {
                let tail = process.stderrLines.suffix(5).map(\.text).joined(separator: "\n")
                throw BenchError("quire watch failed before it published \(site.name):\n\(tail)")
            }
            usleep(2_000)
        }
        let tail = process.stderrLines.suffix(5).map(\.text).joined(separator: "\n")
        throw BenchError("quire watch did not publish \(site.name) within \(Int(timeout)) s; its last lines:\n\(tail)")
    }

    static func isPublishLine(_ line: String) -> Bool { line.contains(": published v") }

    /// 12 for `quire: bench: published v000012, ...`.
    static func publishedVersion(_ line: String) -> Int? {
        guard let range = line.range(of: ": published v") else { return nil }
        return Int(line[range.upperBound...].prefix(while: \.isNumber))
    }

    // MARK: Saves

    /// `count` saves of one page each, one at a time: each is written `gap` seconds after the
    /// previous one was read back published (1 s: an editor's pace, on an idle watcher); with a
    /// gap of 0, back to back, the moment the previous one was read back. Stops early when
    /// `budget` seconds have gone by (a slow watcher on a large site), and says so. At the end,
    /// every page saved must hold its last save's text, or it counts as lost.
    /// `published`: called after each save read back published, before the gap.
    func measureSaves(
        count: Int, gap: Double, timeout: Double = 30, budget: Double = .infinity, published: (() -> Void)? = nil
    ) throws -> Latency {
        var latency = Latency()
        var lastToken: [Int: String] = [:]
        let deadline = BenchClock.now + UInt64(min(budget, 1e9) * 1e9)
        for save in 0..<count {
            if BenchClock.now > deadline {
                latency.stoppedByBudget = true
                break
            }
            let page = (save &* 7919 &+ 13) % site.pageCount
            let token = "Saved \(runTag)g\(Int(gap * 1000))s\(save)"
            lastToken[page] = token
            let target = site.publishedPath(distRoot: distRoot, page: page)
            // The page as it is now was read (and checked) before the save, as an app would have it.
            let text = site.pageSource(page, heroTitle: token)
            let before = Self.readFile(target) ?? []
            let tornBefore = latency.tornReads
            if !before.isEmpty && !Self.isCompleteJSON(before) { latency.tornReads += 1 }
            let started = try Self.saveAtomically(site.sourcePath(pagesRoot: pagesRoot, page: page), text)
            defer { if latency.tornReads > tornBefore { latency.savesWithTornReads += 1 } }
            if let arrived = poll(target, for: Array(token.utf8), since: started, timeout: timeout, into: &latency, before: before) {
                latency.milliseconds.append(BenchClock.milliseconds(from: started, to: arrived))
                published?()
            } else {
                latency.timeouts += 1
            }
            if gap > 0 { usleep(UInt32(gap * 1e6)) }
        }
        latency.lost = pagesWithout(lastToken, timeout: timeout)
        return latency
    }

    /// How many of `tokens`' pages do not show their token by `timeout` seconds from now.
    private func pagesWithout(_ tokens: [Int: String], timeout: Double) -> Int {
        var waiting = tokens.sorted { $0.key < $1.key }[...]
        let deadline = BenchClock.now + UInt64(timeout * 1e9)
        while let (page, token) = waiting.first {
            let bytes = Self.readFile(site.publishedPath(distRoot: distRoot, page: page)) ?? []
            if Self.contains(bytes, Array(token.utf8)) {
                waiting.removeFirst()
            } else if BenchClock.now > deadline {
                break
            } else {
                usleep(1_000)
            }
        }
        return waiting.count
    }

    /// Reads `path` in a tight loop until it holds `token`; every read that differs from the one
    /// before (at first: `before`, read and checked by the caller before the save) is checked to
    /// be complete JSON.
    private func poll(
        _ path: String, for token: [UInt8], since started: UInt64, timeout: Double, into latency: inout Latency,
        before: [UInt8] = []
    ) -> UInt64? {
        var lastBytes = before
        let deadline = started + UInt64(timeout * 1e9)
        while true {
            let bytes = Self.readFile(path)
            let now = BenchClock.now
            latency.reads += 1
            if let bytes {
                if bytes != lastBytes {
                    if !Self.isCompleteJSON(bytes) { latency.tornReads += 1 }
                    lastBytes = bytes
                    if Self.contains(bytes, token) { return now }
                }
            } else {
                latency.missingReads += 1
            }
            if now > deadline { return nil }
            usleep(200)
        }
    }

    // MARK: Pages coming and going

    /// New pages and their removal: how long until a new page's file is readable under
    /// `current/`, and until a removed page's file is gone.
    struct PageSetChanges {
        var added = Latency()
        var removed = Latency()
    }

    /// `count` new pages, one at a time, each beside an existing page (in its folder, under a new
    /// name), `gap` seconds apart once live; then each removed again, one at a time.
    func measurePageSetChanges(count: Int, gap: Double, timeout: Double = 30) throws -> PageSetChanges {
        var changes = PageSetChanges()
        var added: [(source: String, published: String)] = []
        for index in 0..<count {
            let page = (index &* 7919 &+ 29) % site.pageCount
            let suffix = "-new-\(runTag)-\(index)"
            let source = String(site.sourcePath(pagesRoot: pagesRoot, page: page).dropLast(".yaml".count)) + suffix + ".yaml"
            let published = String(site.publishedPath(distRoot: distRoot, page: page).dropLast(".json".count)) + suffix + ".json"
            let token = "Added \(runTag)a\(index)"
            let text = site.pageSource(page, heroTitle: token)
            let started = try Self.saveAtomically(source, text)
            if let arrived = poll(published, for: Array(token.utf8), since: started, timeout: timeout, into: &changes.added) {
                changes.added.milliseconds.append(BenchClock.milliseconds(from: started, to: arrived))
            } else {
                changes.added.timeouts += 1
            }
            added.append((source, published))
            usleep(UInt32(gap * 1e6))
        }
        for (source, published) in added {
            let started = BenchClock.now
            guard unlink(source) == 0 else { throw BenchError("cannot remove \(source): \(String(cString: strerror(errno)))") }
            let deadline = started + UInt64(timeout * 1e9)
            while access(published, F_OK) == 0 && BenchClock.now < deadline { usleep(200) }
            if access(published, F_OK) == 0 {
                changes.removed.timeouts += 1
            } else {
                changes.removed.milliseconds.append(BenchClock.milliseconds(from: started, to: BenchClock.now))
            }
            usleep(UInt32(gap * 1e6))
        }
        return changes
    }

    // MARK: Burst

    /// Which pages a burst rewrites.
    enum BurstShape: String {
        /// Pages 0, 1, 2, ...: in the nested layout, a few folders (a section of the site).
        case consecutive
        /// Evenly spaced over the whole site: every folder (a translation drop, a `git pull`).
        case spread

        /// The page of the `write`th file of a burst of `files` on `pageCount` pages.
        func page(_ write: Int, files: Int, pageCount: Int) -> Int {
            self == .spread && files < pageCount ? write * pageCount / files : write % pageCount
        }
    }

    /// Writes `files` changed page sources as fast as possible, then waits for the watcher to
    /// settle and counts the versions it published.
    func measureBurst(files: Int, shape: BurstShape = .consecutive, settle: Double = 2, timeout: Double = 120) throws -> Burst {
        var burst = Burst(files: files)
        let versionsBefore = newestVersionNumber()
        let linesBefore = process.stderrLines.count
        var finalToken: [Int: String] = [:]
        var writeOrder: [Int] = []
        let started = BenchClock.now
        for write in 0..<files {
            let page = shape.page(write, files: files, pageCount: site.pageCount)
            let token = "Burst \(runTag)\(shape.rawValue)\(write)"
            if finalToken.updateValue(token, forKey: page) == nil { writeOrder.append(page) }
            try Self.saveAtomically(site.sourcePath(pagesRoot: pagesRoot, page: page), site.pageSource(page, heroTitle: token))
        }
        let lastWrite = BenchClock.now
        burst.writeMilliseconds = BenchClock.milliseconds(from: started, to: lastWrite)

        // Wait until every page shows its final text, then for the watcher to go quiet. Pages
        // are checked in write order, up to the first one not shown yet: a version is published
        // whole, so reading all 1,000 pages every millisecond would only take a core from the
        // watcher on a two-core machine, and slow down what it measures.
        var waiting = writeOrder[...]
        let deadline = lastWrite + UInt64(timeout * 1e9)
        while let page = waiting.first, BenchClock.now < deadline {
            if let bytes = Self.readFile(site.publishedPath(distRoot: distRoot, page: page)), let token = finalToken[page],
                Self.contains(bytes, Array(token.utf8))
            {
                waiting.removeFirst()
            } else {
                usleep(1_000)
            }
        }
        if waiting.isEmpty { burst.allVisibleAfterLastWriteMilliseconds = BenchClock.milliseconds(from: lastWrite, to: BenchClock.now) }
        burst.lost = waiting.count
        var quietSince = BenchClock.now
        var seen = process.stderrLines.count
        while Double(BenchClock.now - quietSince) / 1e9 < settle {
            usleep(20_000)
            let count = process.stderrLines.count
            if count != seen {
                seen = count
                quietSince = BenchClock.now
            }
        }
        let publishes = process.stderrLines.dropFirst(linesBefore).filter { (Self.publishedVersion($0.text) ?? 0) > versionsBefore }
        burst.versionsPublished = publishes.count
        burst.versionNumberDelta = newestVersionNumber() - versionsBefore
        if let last = publishes.last, last.nanoseconds > lastWrite {
            burst.lastPublishAfterLastWriteMilliseconds = BenchClock.milliseconds(from: lastWrite, to: last.nanoseconds)
        }
        return burst
    }

    /// The highest `vNNNNNN` in `dist/<site>/versions/` (0 when none).
    func newestVersionNumber() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(distRoot)/\(site.name)/versions")) ?? []
        return names.compactMap { $0.first == "v" ? Int($0.dropFirst()) : nil }.max() ?? 0
    }

    /// Stops the watcher once; later calls return how it exited.
    func stop() -> BenchProcess.Exit {
        if let exit = stopped { return exit }
        let exit = process.stop()
        stopped = exit
        return exit
    }

    private var stopped: BenchProcess.Exit?

    // MARK: Files

    /// Write-temp-then-rename, as most editors save: a hidden temp name the watcher ignores.
    /// Returns the moment the save began, where a save's latency starts: the text is made
    /// before, as an editor's is.
    @discardableResult
    static func saveAtomically(_ path: String, _ text: String) throws -> UInt64 {
        let started = BenchClock.now
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary = "\(folder)/.\(name).bench\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchError("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count else { throw BenchError("short write to \(temporary)") }
        guard rename(temporary, path) == 0 else { throw BenchError("cannot rename \(temporary): \(String(cString: strerror(errno)))") }
        return started
    }

    /// The whole file, or nil when it does not exist.
    static func readFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }

    static func isCompleteJSON(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return false }
        return (try? JSONSerialization.jsonObject(with: Data(bytes))) != nil
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, needle.count <= haystack.count else { return needle.isEmpty }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first && haystack[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
