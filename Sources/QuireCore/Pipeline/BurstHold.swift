// The delta base and burst holding, in one owner that makes every hold decision.
//
// The base (`DeltaBase`) is what the last published build left for the next delta: a full build
// replaces it once published, a delta build takes it while it changes it and gives it back.
// While a burst of saves is still being written (the watcher's change set says `moreComing`), a
// change set the fast path can take is rendered but not published: the next build adds its own
// changes (an empty set adds none) and publishes all of them as one version. So a burst is
// rendered while it is written, and its folders are written once.
//
//   change set (moreComing) -> delta build renders, `hold`s            -> nothing published
//   change set (moreComing) -> delta build `take`s, adds, `hold`s again -> nothing published
//   change set (last)       -> delta build `take`s, adds, publishes     -> one version
//   anything else           -> full build `discard`s the hold and renders every page anyway
//
// The pages held are applied to the base meanwhile, and who caused them is kept with them.

/// A delta rendered while its burst was still being written, not published yet.
struct HeldDelta {
    var changes: DeltaChanges
    var scope: DeltaScope
    /// Where its rendered files wait, when it streamed them.
    var blobs: StagingBlobs?
    var filesRendered = 0
    var pagesRebuilt: Set<String> = []
}

/// The one place a builder keeps its delta base and a held burst, and decides whether to hold.
struct BurstHold {
    private var held: HeldDelta?
    /// What the next change set can be published against as a delta; nil while a delta build
    /// has it, or when the next build must take the full path.
    private(set) var base: DeltaBase?
    /// Who caused the changes the next publish carries (a dashboard editor), for its history
    /// line: kept while a burst is held, so the build that publishes it names them too.
    private(set) var user: String?

    /// Whether rendered pages wait for the next build to be published.
    var isHolding: Bool { held != nil }

    /// A build starts: `user` caused its changes (nil: this process's user, unless a held burst
    /// names one).
    mutating func start(user: String?) {
        if let user { self.user = user }
    }

    /// A build ends: unless it held its changes, the next publish names its own user.
    mutating func finish() {
        if held == nil { user = nil }
    }

    /// The base, given up while a delta build changes it (one owner: updating a page's entries
    /// does not copy every other page's), and what is held, which the build adds to.
    mutating func takeForDelta() -> (base: DeltaBase, held: HeldDelta?)? {
        guard let base = base.take() else { return nil }
        return (base, held.take())
    }

    /// Whether a delta build of `scope` is held rather than published: when `requested` (its
    /// burst goes on) and it holds no asset. Assets are read at the publish, never held: a held
    /// asset digest would let a full build that discards the hold carry the old bytes.
    func mayHold(_ scope: DeltaScope, requested: Bool) -> Bool { requested && scope.assets.isEmpty }

    /// Holds `delta`, rendered on `base`, instead of publishing it (`mayHold` said so).
    mutating func hold(_ delta: HeldDelta, on base: DeltaBase) {
        precondition(held == nil, "a burst is held once: the build that adds to it takes it first")
        held = delta
        self.base = base
    }

    /// The base the next delta builds on (nil: the next build takes the full path).
    mutating func keep(_ base: DeltaBase?) { self.base = base }

    /// Drops a held delta without publishing it (`take`n or still here), and the base it was
    /// applied to.
    mutating func discard(_ delta: HeldDelta?, from state: inout IncrementalState) {
        base = nil
        guard let delta else { return }
        // Its staged files go, and so do the outputs its pages left (the newest version does
        // not hold them, so they cannot be carried).
        delta.blobs?.close()
        state.forgetOutputs(of: delta.scope.pages)
    }

    /// Drops what is held and the base (a full build renders every page again and leaves a new
    /// base; a failed build forgets).
    mutating func discard(from state: inout IncrementalState) {
        discard(held.take(), from: &state)
    }
}
