import Testing

@testable import QuireWatch

@Suite("Settler")
struct SettlerTests {
    @Test("a lone save on an idle tree is emitted at once")
    func leadingEdge() {
        var settle = EmbeddedSettler()
        settle.write("/p/a.yaml", at: 5)
        #expect(settle.changeSets == [ChangeSet(paths: ["/p/a.yaml"])])
        #expect(settle.emitted.first?.time == 5)
        #expect(!settle.settler.hasPending)
    }

    @Test("a safe save (old copy moved away, new one moved in) is still a lone save")
    func safeSaveIsLeadingEdge() {
        var settle = EmbeddedSettler()
        settle.record(.changed("/p/a.yaml"), at: 1)
        settle.write("/p/a.yaml", at: 1.001)
        #expect(settle.emitted.map(\.time) == [1.001])
        #expect(settle.changeSets == [ChangeSet(paths: ["/p/a.yaml"])])
    }

    @Test("saves spaced wider than the quiet window are each emitted at once")
    func separateSaves() {
        var settle = EmbeddedSettler()
        settle.write("/p/a.yaml", at: 1)
        settle.write("/p/b.yaml", at: 2)
        #expect(settle.emitted.map(\.time) == [1, 2])
        #expect(settle.changeSets == [ChangeSet(paths: ["/p/a.yaml"]), ChangeSet(paths: ["/p/b.yaml"])])
    }

    @Test("events following a save within the quiet window are coalesced into the next set")
    func coalescing() {
        var settle = EmbeddedSettler()
        settle.write("/p/a.yaml", at: 0)
        settle.write("/p/b.yaml", at: 0.01)
        settle.record(.changed("/p/c.yaml"), at: 0.02)
        settle.write("/p/d.yaml", at: 0.04)
        settle.advance(to: 0.069)
        #expect(settle.changeSets.count == 1)
        settle.advance(to: 0.5)
        #expect(
            settle.changeSets == [
                ChangeSet(paths: ["/p/a.yaml"]), ChangeSet(paths: ["/p/b.yaml", "/p/c.yaml", "/p/d.yaml"]),
            ])
        #expect(settle.emitted.last?.time == 0.07)
        #expect(!settle.settler.hasPending)
    }

    @Test("a deletion alone waits for the quiet window")
    func deletionWaitsForQuiet() {
        var settle = EmbeddedSettler()
        settle.record(.changed("/p/gone.yaml"), at: 1)
        #expect(settle.changeSets.isEmpty)
        settle.advance(to: 2)
        #expect(settle.emitted.map(\.time) == [1.03])
        #expect(settle.changeSets == [ChangeSet(paths: ["/p/gone.yaml"])])
    }

    @Test("a never-ending stream is emitted at the latest maxDelay after each event")
    func maxDelayCap() {
        var settle = EmbeddedSettler(quietWindow: 0.03, maxDelay: 1.0)
        var writtenAt: [String: Double] = [:]
        for step in 0..<500 {  // every 10 ms for 5 s
            let path = "/p/\(step).yaml"
            writtenAt[path] = Double(step) * 0.01
            settle.write(path, at: Double(step) * 0.01)
        }
        settle.advance(to: 10)
        #expect(settle.changeSets.reduce(into: Set<String>()) { $0.formUnion($1.paths) } == Set(writtenAt.keys))
        #expect(settle.changeSets.count >= 5 && settle.changeSets.count <= 7)
        for (time, changeSet) in settle.emitted {
            for path in changeSet.paths {
                #expect(time - (writtenAt[path] ?? -1) <= 1.0 + 1e-9, "\(path) waited too long")
            }
        }
    }

    static func milliseconds(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }

    /// Writes `count` files, one every `gap` seconds from `start`; returns when each was written.
    static func burst(_ settle: inout EmbeddedSettler, prefix: String, count: Int, start: Double, gap: Double) -> [String: Double] {
        var writtenAt: [String: Double] = [:]
        for step in 0..<count {
            let path = "/p/\(prefix)\(step).yaml"
            writtenAt[path] = start + Double(step) * gap
            settle.write(path, at: start + Double(step) * gap)
        }
        return writtenAt
    }

    /// When sets that publish were emitted (those not marked `moreComing`), in milliseconds.
    static func publishTimes(_ settle: EmbeddedSettler) -> [Int] {
        settle.emitted.filter { !$0.changeSet.moreComing }.map { milliseconds($0.time) }
    }

    @Test("a burst is published twice: its first file at once, the rest at quiet; parts go to the consumer every headStart meanwhile")
    func burstHeadStart() {
        var settle = EmbeddedSettler(headStart: 0.1)
        let writtenAt = Self.burst(&settle, prefix: "b", count: 100, start: 0, gap: 0.005)  // 0 ... 0.495 s
        settle.advance(to: 5)
        #expect(Self.publishTimes(settle) == [0, 525])
        let held = settle.emitted.filter(\.changeSet.moreComing)
        #expect(held.map { Self.milliseconds($0.time) } == [105, 210, 315, 415, 515])
        // Each held part: what was written from its first pending file until headStart later.
        for (time, changeSet) in held {
            let first = changeSet.paths.compactMap { writtenAt[$0] }.min() ?? -1
            #expect(abs(time - first - 0.1) < 1e-9)
        }
        #expect(settle.changeSets.reduce(into: Set<String>()) { $0.formUnion($1.paths) } == Set(writtenAt.keys))
        #expect(settle.changeSets.map(\.paths.count).reduce(0, +) == 100)
    }

    @Test("a burst that ends right after a held part is published by an empty set at quiet")
    func heldPartIsFlushed() {
        var settle = EmbeddedSettler(headStart: 0.1)
        _ = Self.burst(&settle, prefix: "f", count: 21, start: 0, gap: 0.005)  // 0 ... 0.1 s
        settle.advance(to: 5)
        #expect(settle.emitted.map { Self.milliseconds($0.time) } == [0, 105, 130])
        #expect(settle.changeSets.map(\.moreComing) == [false, true, false])
        #expect(settle.changeSets.map(\.paths.count) == [1, 20, 0])
        // Nothing is held any more: a later lone save is emitted at once, and alone.
        settle.write("/p/later.yaml", at: 6)
        #expect(settle.emitted.count == 4 && settle.changeSets.last == ChangeSet(paths: ["/p/later.yaml"]))
    }

    @Test("each burst after a quiet gap is held and published on its own; a lone save is never held")
    func headStartPerBurst() {
        var settle = EmbeddedSettler(headStart: 0.1)
        _ = Self.burst(&settle, prefix: "one", count: 50, start: 0, gap: 0.005)
        _ = Self.burst(&settle, prefix: "two", count: 50, start: 2, gap: 0.005)
        settle.advance(to: 5)
        #expect(Self.publishTimes(settle) == [0, 275, 2000, 2275])
        settle.write("/p/lone.yaml", at: 6)
        settle.record(.changed("/p/lone.yaml.new"), at: 6.01)
        settle.advance(to: 7)
        #expect(settle.emitted.suffix(2).map { Self.milliseconds($0.time) } == [6000, 6040])
        #expect(settle.emitted.suffix(2).allSatisfy { !$0.changeSet.moreComing })
    }

    @Test("with the default head start, a never-ending stream is still published at most every maxDelay")
    func headStartKeepsTheMaxDelayCap() {
        var settle = EmbeddedSettler(quietWindow: 0.03, maxDelay: 1.0, headStart: WatchOptions().headStart)
        _ = Self.burst(&settle, prefix: "s", count: 500, start: 0, gap: 0.01)  // 5 s
        settle.advance(to: 10)
        let times = Self.publishTimes(settle)
        #expect(times.first == 0)
        // The last publish comes at quiet (5.02 s) at the latest, and nothing is held after it.
        #expect((times.last ?? 0) <= 5020 && settle.emitted.last?.changeSet.moreComing == false)
        #expect(times.count >= 6 && times.count <= 8, "\(times)")
        for (earlier, later) in zip(times, times.dropFirst()) {
            #expect(later - earlier <= 1010, "\(earlier) ms to \(later) ms")
        }
    }

    @Test("while the consumer is busy, events accumulate into one set")
    func busyConsumer() {
        var settle = EmbeddedSettler()
        settle.consumerReturnsAtOnce = false
        settle.write("/p/first.yaml", at: 0)
        for step in 1...300 {
            settle.write("/p/\(step % 50).yaml", at: Double(step) * 0.01)
        }
        settle.advance(to: 10)
        #expect(settle.changeSets.count == 1)
        settle.finishConsumer()
        #expect(settle.changeSets.count == 2)
        #expect(settle.changeSets.last?.paths.count == 50)
        #expect(settle.emitted.last?.time == 10)
        settle.finishConsumer()
        #expect(!settle.settler.hasPending)
    }

    @Test("too many pending paths collapse into a full rescan")
    func boundedMemory() {
        var settle = EmbeddedSettler(maxPendingPaths: 10)
        settle.consumerReturnsAtOnce = false
        settle.write("/p/first.yaml", at: 0)
        for step in 1...11 {
            settle.write("/p/\(step).yaml", at: 0.001 * Double(step))
        }
        settle.write("/p/after.yaml", at: 0.1)
        settle.finishConsumer()
        settle.advance(to: 2)
        #expect(settle.changeSets.last == ChangeSet(needsFullRescan: true))
    }

    @Test("lost events ask for a full rescan")
    func rescan() {
        var settle = EmbeddedSettler()
        settle.record(.rescan, at: 0)
        settle.advance(to: 1)
        #expect(settle.changeSets == [ChangeSet(needsFullRescan: true)])
    }

    @Test("a git index lock holds a due set until it is gone")
    func gitHold() {
        var settle = EmbeddedSettler()
        settle.gitHoldsTree = true
        settle.write("/p/a.yaml", at: 0)
        settle.write("/p/b.yaml", at: 0.5)
        settle.advance(to: 30)
        #expect(settle.changeSets.isEmpty)
        settle.gitHoldsTree = false
        settle.advance(to: 30.1)
        #expect(settle.changeSets == [ChangeSet(paths: ["/p/a.yaml", "/p/b.yaml"])])
        #expect(settle.emitted.first?.time == 30)
    }
}
