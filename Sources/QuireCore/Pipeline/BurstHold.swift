// Burst holding. While a burst of saves is still being written (the watcher's change set says
// `moreComing`), a change set the fast path can take is rendered but not published: the next
// build adds its own changes (an empty set adds none) and publishes all of them as one version.
// So a burst is rendered while it is written, and its folders are written once.
//
//   change set (moreComing) -> delta build renders, `hold`s            -> nothing published
//   change set (moreComing) -> delta build `take`s, adds, `hold`s again -> nothing published
//   change set (last)       -> delta build `take`s, adds, publishes     -> one version
//   anything else           -> full build `discard`s the hold and renders every page anyway
//
// The pages held are applied to the builder's `DeltaBase` meanwhile.

/// A delta rendered while its burst was still being written, not published yet.
struct HeldDelta {
    var changes: DeltaChanges
    var scope: DeltaScope
    /// Where its rendered files wait, when it streamed them.
    var blobs: StagingBlobs?
    var filesRendered = 0
    var pagesRebuilt: Set<String> = []
}

/// The one place a builder keeps a held burst.
struct BurstHold {
    private var held: HeldDelta?

    /// Whether rendered pages wait for the next build to be published.
    var isHolding: Bool { held != nil }

    /// Whether a delta build of `scope` may be held rather than published. Assets are read at
    /// the publish, never held: a held asset digest would let a full build that discards the
    /// hold carry the old bytes.
    static func mayHold(_ scope: DeltaScope) -> Bool { scope.assets.isEmpty }

    /// The held delta, for the delta build that adds to it (and holds or publishes the sum).
    mutating func take() -> HeldDelta? { held.take() }

    mutating func hold(_ delta: HeldDelta) {
        precondition(held == nil, "a burst is held once: the build that adds to it takes it first")
        held = delta
    }

    /// Drops what is held without publishing it (`take`n or still here).
    static func discard(_ delta: HeldDelta?, from state: inout IncrementalState) {
        guard let delta else { return }
        // Its staged files go, and so do the outputs its pages left (the newest version does
        // not hold them, so they cannot be carried) and the base they were applied to.
        delta.blobs?.close()
        state.forgetOutputs(of: delta.scope.pages)
        state.setDeltaBase(nil)
    }

    /// Drops what is held (a full build renders its pages again; a failed build forgets).
    mutating func discard(from state: inout IncrementalState) {
        Self.discard(held.take(), from: &state)
    }
}
