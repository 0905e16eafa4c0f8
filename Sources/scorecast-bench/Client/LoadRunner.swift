import APNs
import Foundation
import Synchronization

/// What one closed-loop load run produced.
struct LoadOutcome: Sendable {
    /// Requests answered (any status).
    let answered: Int
    /// Answers by HTTP status.
    let statuses: [Int: Int]
    /// Requests that got no answer, by client error code.
    let errors: [String: Int]
    /// Wall time of the run, seconds.
    let seconds: Double
    /// CPU seconds this process used during the run.
    let clientCPUSeconds: Double

    /// 2xx answers.
    var succeeded: Int { statuses.filter { (200..<300).contains($0.key) }.reduce(0) { $0 + $1.value } }
    /// 2xx answers per second.
    var rate: Double { seconds > 0 ? Double(succeeded) / seconds : 0 }
}

/// A closed loop like h2load's: `lanes` tasks (connections × streams) each send one request,
/// await its answer and send the next, until `total` requests have been handed out or
/// `timeLimit` has passed. ``runBatched(total:lanes:batchSize:timeLimit:send:)`` drives a
/// batch API the way a delivery worker does.
enum LoadRunner {
    private final class Counter: Sendable {
        let next = Atomic<Int>(0)
    }

    /// One lane's answers by status and failures by error code.
    private struct Tally: Sendable {
        var statuses: [Int: Int] = [:]
        var errors: [String: Int] = [:]

        mutating func count(_ response: APNsResponse) { statuses[response.status, default: 0] += 1 }
        mutating func count(_ error: any Error) {
            errors[(error as? APNsClientError)?.code.rawValue ?? "\(error)", default: 0] += 1
        }
    }

    /// Runs `send(index)` `total` times over `lanes` concurrent lanes.
    static func run(total: Int, lanes: Int, timeLimit: Duration,
                    send: @escaping @Sendable (Int) async throws -> APNsResponse) async -> LoadOutcome {
        let counter = Counter()
        return await measure(lanes: lanes, timeLimit: timeLimit) { deadline in
            var tally = Tally()
            while true {
                let index = counter.next.add(1, ordering: .relaxed).oldValue
                if index >= total || ContinuousClock.now >= deadline { break }
                do {
                    tally.count(try await send(index))
                } catch {
                    tally.count(error)
                }
            }
            return tally
        }
    }

    /// Like ``run(total:lanes:timeLimit:send:)``, but each lane takes the next `batchSize`
    /// indices at once, sends them as one batch with `send(indices)` and awaits every answer
    /// before taking more, as a delivery worker sends the rows it claimed.
    static func runBatched(total: Int, lanes: Int, batchSize: Int, timeLimit: Duration,
                           send: @escaping @Sendable (Range<Int>) async -> [Result<APNsResponse, APNsClientError>]) async -> LoadOutcome {
        let counter = Counter()
        let size = max(1, batchSize)
        return await measure(lanes: lanes, timeLimit: timeLimit) { deadline in
            var tally = Tally()
            while true {
                let first = counter.next.add(size, ordering: .relaxed).oldValue
                if first >= total || ContinuousClock.now >= deadline { break }
                for result in await send(first..<min(first + size, total)) {
                    switch result {
                    case .success(let response): tally.count(response)
                    case .failure(let error): tally.count(error)
                    }
                }
            }
            return tally
        }
    }

    /// Runs `lane` on `lanes` concurrent tasks and sums their tallies, with the wall and CPU time.
    private static func measure(lanes: Int, timeLimit: Duration,
                                lane: @escaping @Sendable (ContinuousClock.Instant) async -> Tally) async -> LoadOutcome {
        let cpuBefore = ProcFS.sampleSelf()?.cpuSeconds ?? 0
        let started = ContinuousClock.now
        let deadline = started + timeLimit
        let total = await withTaskGroup(of: Tally.self) { group in
            for _ in 0..<max(1, lanes) {
                group.addTask { await lane(deadline) }
            }
            var total = Tally()
            for await tally in group {
                total.statuses.merge(tally.statuses, uniquingKeysWith: +)
                total.errors.merge(tally.errors, uniquingKeysWith: +)
            }
            return total
        }
        let elapsed = ContinuousClock.now - started
        let cpuAfter = ProcFS.sampleSelf()?.cpuSeconds ?? cpuBefore
        return LoadOutcome(answered: total.statuses.values.reduce(0, +), statuses: total.statuses, errors: total.errors,
                           seconds: elapsed.seconds, clientCPUSeconds: cpuAfter - cpuBefore)
    }
}

extension Duration {
    /// The duration in (fractional) seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in (fractional) milliseconds.
    var milliseconds: Double { seconds * 1000 }
}
