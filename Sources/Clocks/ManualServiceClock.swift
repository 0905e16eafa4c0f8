import Foundation
import Synchronization

/// A clock that moves only when a test advances it; sleepers wake when their time comes (or
/// when their task is cancelled). Both readings move together, except when the wall clock is
/// set (``setWallClock(to:)``), as an operator or NTP would.
public final class ManualServiceClock: ServiceClock {
    private struct Sleeper {
        let deadline: Date
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Date
        var elapsed: Duration = .zero
        var sleepers: [UUID: Sleeper] = [:]
        var readings = 0
    }

    private let state: Mutex<State>
    private let origin = ContinuousClock.now

    /// A clock reading `start`.
    public init(_ start: Date) { state = Mutex(State(now: start)) }

    /// The time the test has moved the clock to.
    public func now() -> Date {
        state.withLock { state in
            state.readings += 1
            return state.now
        }
    }

    /// How many times ``now()`` has been read, by the code under test and the test alike: a test
    /// waits on it for the code under test to reach the point where it takes the time.
    public var readings: Int { state.withLock { $0.readings } }

    /// The creation instant plus every advance.
    public func monotonicNow() -> ContinuousClock.Instant { origin + state.withLock { $0.elapsed } }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Waits until the clock is advanced `duration` past the time of the call.
    public func sleep(for duration: Duration) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    let deadline = state.now.adding(duration)
                    if deadline <= state.now || Task.isCancelled { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// Moves both readings on by `duration` and wakes every sleeper whose time came.
    public func advance(by duration: Duration) {
        move { state in
            state.now = state.now.adding(duration)
            state.elapsed += duration
        }
    }

    /// Sets the wall clock to `date`, forwards or back; the monotonic reading does not move.
    public func setWallClock(to date: Date) {
        move { $0.now = date }
    }

    private func move(_ change: (inout State) -> Void) {
        let due = state.withLock { state -> [Sleeper] in
            change(&state)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for key in due.keys { state.sleepers[key] = nil }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
