import Foundation

/// What the libraries a build cannot do without cost on their own, on one core: libyaml's events
/// over every source file, and cmark's HTML of every page-locale's markdown. With `WriteFloor`
/// this bounds a cold build from below on a given machine: no build of the same sources and
/// output can spend less CPU than the three together.
package enum LibraryFloor {
    package struct Figures: Sendable {
        package var sourceFiles = 0
        package var sourceBytes = 0
        package var yamlEvents = 0
        /// CPU seconds of libyaml alone (the reading of the files is not counted).
        package var yamlSeconds: Double = 0
        package var markdownDocuments = 0
        package var markdownBytes = 0
        package var markdownSeconds: Double = 0
    }

    /// Every `.yaml`/`.yml` file under `sources` through libyaml, then every text of `markdown`
    /// through cmark, on this thread. Throws when a file cannot be read or is not YAML.
    package static func measure(sources: String, markdown: [String]) throws(StoreError) -> Figures {
        var figures = Figures()
        let files = try FileSystem.regularFiles(under: sources).filter { $0.name.hasSuffix(".yaml") || $0.name.hasSuffix(".yml") }
        for (folder, name, _) in files {
            let path = folder + "/" + name
            let bytes = try FileSystem.readFile(path)
            let started = threadCPUSeconds()
            guard let events = bytes.withUnsafeBufferPointer(LibYAMLEventReader.eventCount) else {
                throw StoreError("\(path): libyaml refused it")
            }
            figures.yamlSeconds += threadCPUSeconds() - started
            figures.sourceFiles += 1
            figures.sourceBytes += bytes.count
            figures.yamlEvents += events
        }
        let started = threadCPUSeconds()
        for text in markdown { _ = CommonMarkDocument.htmlLength(of: text) }
        figures.markdownSeconds = threadCPUSeconds() - started
        figures.markdownDocuments = markdown.count
        figures.markdownBytes = markdown.reduce(0) { $0 + $1.utf8.count }
        return figures
    }

    /// This thread's CPU time: the measure runs on one thread while others may run.
    private static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
