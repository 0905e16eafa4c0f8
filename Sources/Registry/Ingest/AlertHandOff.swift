import DeliveryEngine
import Foundation
import Synchronization

/// Alerting outbox rows that ingest leased to this process's own senders, inside the ingest
/// transaction, and hands over in memory once it commits: a goal goes to APNs without waiting
/// for a worker's next claim.
///
/// The row stays the durable record. Ingest writes it already leased to ``owner`` (the lease the
/// workers' claim writes, dated by the same clock), so no other worker claims it while it is on
/// its way; if this process dies before the send is completed, the lease runs out and any worker
/// takes the row over, as it takes over a crashed worker's claim. The hand-off only moves the
/// wait, never the promise.
///
/// Bounded: ingest leases at most ``room()`` rows, so a burst of goals while the senders are
/// busy waits in the outbox for an ordinary claim instead of piling up here.
package final class AlertHandOff: Sendable {
    private struct State {
        var isOpen = true
        var waiting: [Int64] = []
        var wake: (@Sendable () -> Void)?
    }

    /// The lease owner of the rows handed over (`<process prefix>/handoff`): a worker sends them
    /// under it and completes them fenced on it, and the process's shutdown releases it with
    /// its other leases.
    package let owner: String
    /// The process's lease owner prefix (its workers' owners start with it too).
    package let ownerPrefix: String
    /// How long a handed row's lease lasts before another process may take it over.
    package let lease: Duration
    /// Rows handed over and not yet taken, at most.
    package let capacity: Int
    private let state = Mutex(State())

    /// A hand-off for the process whose lease owners start with `ownerPrefix`.
    package init(ownerPrefix: String, lease: Duration, capacity: Int) {
        self.ownerPrefix = ownerPrefix
        owner = ownerPrefix + "/handoff"
        self.lease = lease
        self.capacity = max(0, capacity)
    }

    /// How many more rows ingest may lease to the hand-off now: none once it is closed.
    package func room() -> Int {
        state.withLock { $0.isOpen ? max(0, capacity - $0.waiting.count) : 0 }
    }

    /// Hands over the rows (`channels.id`) a committed ingest leased to ``owner``, and wakes
    /// the senders. After ``close()`` the rows are left to their lease.
    package func handOver(_ channelIDs: [Int64]) {
        guard !channelIDs.isEmpty else { return }
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            guard state.isOpen else { return nil }
            state.waiting += channelIDs
            return state.wake
        }
        wake?()
    }

    /// Takes up to `limit` of the rows handed over, oldest first.
    package func take(limit: Int) -> [Int64] {
        state.withLock { state in
            let taken = Array(state.waiting.prefix(max(0, limit)))
            state.waiting.removeFirst(taken.count)
            return taken
        }
    }

    /// Calls `wake` each time rows are handed over (the senders' wake signal).
    package func onHandOver(_ wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.wake = wake }
    }

    /// Stops taking rows (the senders are stopping); returns the rows handed over and not taken,
    /// for their leases to be given back.
    @discardableResult
    package func close() -> [Int64] {
        state.withLock { state in
            state.isOpen = false
            defer { state.waiting.removeAll() }
            return state.waiting
        }
    }
}

extension AlertHandOff {
    /// Which of `writes` ingest leases to the hand-off: alerting rows due at `now`, of the
    /// `leasable` channels (no sender holds the row, the app is not paused), at most `room`,
    /// in channel order. Anything else waits for an ordinary claim.
    package static func rowsToLease(_ writes: [OutboxWrite], leasable: Set<Int64>, room: Int, now: Date) -> [Int64] {
        Array(writes.lazy
            .filter { $0.entry.isAlerting && $0.entry.claimableAt <= now && leasable.contains($0.channelID) }
            .map(\.channelID)
            .prefix(max(0, room)))
    }
}
