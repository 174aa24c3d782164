import Foundation
import QuireCore
import Testing

@Suite struct MarkdownConcurrencyTests {
    /// The pipeline renders pages in parallel: cmark documents must not share state.
    @Test func concurrentRendersMatchSerialOnes() throws {
        let directory = MarkdownGoldenTests.fixtures
        let sources = try MarkdownGoldenTests.names.map {
            try String(contentsOf: directory.appendingPathComponent("\($0).md"), encoding: .utf8)
        }
        let serial = sources.map(MarkdownRenderer.render)
        let results = ConcurrentResults(count: sources.count * 8)
        DispatchQueue.concurrentPerform(iterations: sources.count * 8) { index in
            results.set(index, MarkdownRenderer.render(sources[index % sources.count]))
        }
        for (index, rendered) in results.values.enumerated() {
            #expect(rendered == serial[index % sources.count])
        }
    }

    final class ConcurrentResults: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [RenderedMarkdown?]

        init(count: Int) { storage = Array(repeating: nil, count: count) }

        func set(_ index: Int, _ value: RenderedMarkdown) {
            lock.lock()
            defer { lock.unlock() }
            storage[index] = value
        }

        var values: [RenderedMarkdown?] {
            lock.lock()
            defer { lock.unlock() }
            return storage
        }
    }
}
