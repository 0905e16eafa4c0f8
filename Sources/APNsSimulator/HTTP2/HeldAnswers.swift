import Synchronization

/// Answers kept back until they are released (the `holdAnswers` fault). A held answer waits
/// without a timer: until holding stops, `releaseAll()` is called, or the simulator shuts down.
///
/// What is parked is a closure that hands the answer back to its connection's loop thread, so a
/// held stream blocks neither its connection, nor other connections, nor the loop.
final class HeldAnswers: Sendable {
    private struct State {
        var holding = false
        var parked: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    /// Whether new answers are held.
    var isHolding: Bool { state.withLock { $0.holding } }

    /// How many answers are held now.
    var count: Int { state.withLock { $0.parked.count } }

    /// Keeps `release` until the answers are released; runs it at once when holding stopped
    /// meanwhile (the hold was lifted between the request's fault check and here).
    func park(_ release: @escaping @Sendable () -> Void) {
        let parked = state.withLock { state -> Bool in
            guard state.holding else { return false }
            state.parked.append(release)
            return true
        }
        if !parked { release() }
    }

    /// Starts or stops holding; stopping releases every held answer.
    func setHolding(_ holding: Bool) {
        let released = state.withLock { state -> [@Sendable () -> Void] in
            state.holding = holding
            guard !holding else { return [] }
            defer { state.parked.removeAll() }
            return state.parked
        }
        for release in released { release() }
    }

    /// Releases the answers held now (later ones are still held while holding); returns how many.
    @discardableResult
    func releaseAll() -> Int {
        let released = state.withLock { state -> [@Sendable () -> Void] in
            defer { state.parked.removeAll() }
            return state.parked
        }
        for release in released { release() }
        return released.count
    }
}
