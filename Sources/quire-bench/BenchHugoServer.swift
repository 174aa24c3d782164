import Foundation

/// `hugo server --renderToDisk` on the generated Hugo site, observed like `BenchWatcher`
/// observes `quire watch`: edit a content file, read the rendered page until the edit is there.
/// Hugo writes its output in place, so a read can find an empty or half-written file: a read is
/// complete when it ends as the page's rendered output ended before the edit (only the title,
/// at the top, changes).
final class BenchHugoServer {
    let site: SyntheticSite
    let hugoRoot: String
    let output: String
    let process: BenchProcess
    let runTag: String
    var initialRenderSeconds: Double = 0

    init(site: SyntheticSite, hugoRoot: String, output: String, port: Int, log: String) throws {
        self.site = site
        self.hugoRoot = hugoRoot
        self.output = output
        runTag = "h\(getpid())t\(BenchClock.now % 1_000_000_007)"
        let candidates: [String] = ["/usr/bin/hugo", "/usr/local/bin/hugo"]
        let hugo = candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/hugo"
        process = try BenchProcess(
            hugo,
            [
                "server", "--renderToDisk", "--source", hugoRoot, "--destination", output,
                "--port", "\(port)", "--bind", "127.0.0.1", "--disableLiveReload", "--watch",
            ],
            stderrLog: log, captureStderr: true)
    }

    func renderedPath(page index: Int) -> String { "\(output)/\(site.defaultLocale)/\(site.pageID(index))/index.html" }
    func contentPath(page index: Int) -> String { "\(hugoRoot)/content/\(site.defaultLocale)/\(site.pageID(index)).md" }

    func waitForFirstRender(timeout: Double) throws {
        let deadline = process.started + UInt64(timeout * 1e9)
        let last = renderedPath(page: site.pageCount - 1)
        while BenchClock.now < deadline {
            if let bytes = BenchWatcher.readFile(last), !bytes.isEmpty {
                initialRenderSeconds = Double(BenchClock.now - process.started) / 1e9
                sleep(2)  // hugo starts watching after its first render
                return
            }
            usleep(5_000)
        }
        throw BenchError("hugo server did not render \(last) within \(Int(timeout)) s; see its log")
    }

    func measureEdits(count: Int, gap: Double, timeout: Double = 20) throws -> BenchWatcher.Latency {
        var latency = BenchWatcher.Latency()
        for edit in 0..<count {
            let page = (edit &* 7919 &+ 13) % site.pageCount
            let target = renderedPath(page: page)
            guard let before = BenchWatcher.readFile(target), before.count > 64 else {
                throw BenchError("hugo did not render \(target)")
            }
            let tail = Array(before.suffix(64))
            let token = "Edited \(runTag)e\(edit)"
            let text = site.hugoPage(page, locale: site.defaultLocale, title: token)
            let tornBefore = latency.tornReads
            defer { if latency.tornReads > tornBefore { latency.savesWithTornReads += 1 } }
            let started = try BenchWatcher.saveAtomically(contentPath(page: page), text)
            var arrived: UInt64?
            var lastBytes = before
            let deadline = started + UInt64(timeout * 1e9)
            while arrived == nil {
                let now = BenchClock.now
                latency.reads += 1
                if let bytes = BenchWatcher.readFile(target) {
                    if bytes != lastBytes {
                        lastBytes = bytes
                        if bytes.count < tail.count || !bytes.suffix(tail.count).elementsEqual(tail) {
                            latency.tornReads += 1
                        } else if BenchWatcher.contains(bytes, Array(token.utf8)) {
                            arrived = now
                        }
                    }
                } else {
                    latency.missingReads += 1
                }
                if now > deadline { break }
                if arrived == nil { usleep(200) }
            }
            if let arrived {
                latency.milliseconds.append(BenchClock.milliseconds(from: started, to: arrived))
            } else {
                latency.timeouts += 1
            }
            usleep(UInt32(gap * 1e6))
        }
        return latency
    }

    func stop() -> BenchProcess.Exit { process.stop() }
}
