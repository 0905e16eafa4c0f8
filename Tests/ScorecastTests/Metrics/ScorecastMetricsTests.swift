import APNsCore
import PrometheusMetrics
import ScorecastCore
@testable import ServiceBase
import Testing


/// The application's metric set (`ScorecastMetrics`) on the registry: label cleaning and
/// concurrent updates. The registry itself is tested in `PrometheusMetricsTests`.
@Suite("Scorecast metrics")
struct ScorecastMetricsTests {
    @Test func concurrentIncrementsAreNotLost() async throws {
        let registry = MetricsRegistry()
        let metrics = try ScorecastMetrics(registry: registry)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<2_000 {
                        let priority: BroadcastPriority = index.isMultiple(of: 2) ? .immediate : .opportunistic
                        metrics.broadcastsSent.increment(SendLabels(app: "app\(worker % 2)", outcome: .accepted, priority: priority))
                        metrics.inFlightSends.increment()
                        metrics.ingestToSend.observe(0.002, AppLabels(app: "app\(worker % 2)"))
                        metrics.inFlightSends.decrement()
                    }
                }
            }
        }
        let total = ["app0", "app1"].flatMap { app in
            [BroadcastPriority.immediate, .opportunistic].map { metrics.broadcastsSent.value(SendLabels(app: app, outcome: .accepted, priority: $0)) }
        }.reduce(0, +)
        #expect(total == 16_000)
        #expect(metrics.inFlightSends.value == 0)
        #expect(metrics.ingestToSend.count(AppLabels(app: "app0")) == 8_000)
    }

    @Test func failureReasonsAreCleaned() {
        #expect(FailureLabels(app: "a", reason: "TooManyRequests").reason == "TooManyRequests")
        #expect(FailureLabels(app: "a", reason: "").reason == "unknown")
        #expect(FailureLabels(app: "a", reason: "bad reason {}").reason == "invalid")
        #expect(FailureLabels(app: "a", reason: "connection reset").reason == "connection_reset")
        #expect(FailureLabels(app: "a", reason: "invalid credentials: the key file is gone").reason == "invalid_credentials")
        #expect(FailureLabels(app: "a", reason: String(repeating: "A", count: 65)).reason == "invalid")
    }
}
