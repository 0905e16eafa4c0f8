import APNs
import Clocks
import Foundation
import Registry
import ScorecastLogging
import ServiceBase
import Synchronization

/// What every worker of one pool shares: the store, the APNs client, credentials, settings,
/// the wake and stop signals, the channels in flight and the counters.
struct WorkerContext: Sendable {
    let store: OutboxStore
    let apns: any BroadcastClients
    let credentials: CredentialStore
    let settings: WorkerSettings
    let logger: Logger
    /// Failures that repeat every round (the database gone), summarised per cause.
    let repeats: RepeatLog
    /// Signalled on NOTIFY (and on stop): idle workers look for work.
    let wakeup: WakeSignal
    /// Signalled on a NOTIFY that announces an alerting row (and on stop): a worker lingering
    /// for a fuller batch claims at once (the fast lane for goals).
    let alerting: WakeSignal
    /// Signalled once, when the pool stops claiming.
    let stopping: WakeSignal
    /// Channels with a send in flight in this process: never claimed twice, even when a lease
    /// ran out during a slow send.
    let inFlight: InFlightChannels
    /// One claim at a time in this process, and none that the last one already answered.
    let turns: ClaimTurns
    let counters: WorkerCounters
    /// The APNs send host's circuit breaker.
    let breaker: HostBreaker
    /// The process's `/metrics` counters, when it serves them.
    let metrics: ScorecastMetrics?
    /// The prefix of every lease owner of this pool (`host:pid:random`).
    let ownerPrefix: String
    /// The goals this process's ingest leased to its own senders, when it ingests.
    let handOff: AlertHandOff?
    /// The time claims and leases are decided at, and the heartbeat's pace: the system clock in
    /// `serve`, a manual one in tests (a lease then runs out when the test says, not when a
    /// loaded machine happens to starve a timer).
    let clock: any ServiceClock
}

/// The set of channels this process is sending to right now.
final class InFlightChannels: Sendable {
    private let channels = Mutex<Set<Int64>>([])

    var snapshot: [Int64] { channels.withLock { Array($0) } }

    func insert(_ ids: [Int64]) { channels.withLock { $0.formUnion(ids) } }

    func remove(_ ids: [Int64]) { channels.withLock { $0.subtract(ids) } }
}

/// A lease owner unique to this process: host name, pid and a random part (pids are reused,
/// and several processes on several hosts share one database).
package enum WorkerIdentity {
    /// A new prefix, `host:pid:random`, for the lease owners of one process.
    package static func makeOwnerPrefix() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let host = gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : "host"
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return "\(host.isEmpty ? "host" : host):\(getpid()):\(random)"
    }
}
