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
/// `timeLimit` has passed.
enum LoadRunner {
    private final class Counter: Sendable {
        let next = Atomic<Int>(0)
    }

    /// Runs `send(index)` `total` times over `lanes` concurrent lanes.
    static func run(total: Int, lanes: Int, timeLimit: Duration,
                    send: @escaping @Sendable (Int) async throws -> APNsResponse) async -> LoadOutcome {
        let counter = Counter()
        let cpuBefore = ProcFS.sampleSelf()?.cpuSeconds ?? 0
        let started = ContinuousClock.now
        let deadline = started + timeLimit
        let tallies = await withTaskGroup(of: ([Int: Int], [String: Int]).self) { group in
            for _ in 0..<max(1, lanes) {
                group.addTask {
                    var statuses: [Int: Int] = [:]
                    var errors: [String: Int] = [:]
                    while true {
                        let index = counter.next.add(1, ordering: .relaxed).oldValue
                        if index >= total || ContinuousClock.now >= deadline { break }
                        do {
                            let response = try await send(index)
                            statuses[response.status, default: 0] += 1
                        } catch {
                            errors[(error as? APNsClientError)?.code.rawValue ?? "\(error)", default: 0] += 1
                        }
                    }
                    return (statuses, errors)
                }
            }
            var statuses: [Int: Int] = [:]
            var errors: [String: Int] = [:]
            for await (laneStatuses, laneErrors) in group {
                statuses.merge(laneStatuses, uniquingKeysWith: +)
                errors.merge(laneErrors, uniquingKeysWith: +)
            }
            return (statuses, errors)
        }
        let elapsed = ContinuousClock.now - started
        let cpuAfter = ProcFS.sampleSelf()?.cpuSeconds ?? cpuBefore
        return LoadOutcome(answered: tallies.0.values.reduce(0, +), statuses: tallies.0, errors: tallies.1,
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
