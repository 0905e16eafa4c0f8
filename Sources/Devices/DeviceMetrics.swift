import PrometheusMetrics
import ServiceBase
/// The device side's `/metrics` series, counted by this process as it sends:
/// `scorecast_push_to_start_total{outcome, reason}` (outcome `started`, `failed`, `retried`),
/// `scorecast_device_tokens_pruned_total{kind, reason}` (kind `push-to-start` or `activity`) and
/// `scorecast_activity_updates_total{outcome, reason}` (token-path updates) and
/// `scorecast_activity_updates_downgraded_total{app}` (token-path updates sent at priority 5
/// because the activity's priority-10 budget was spent; per app like
/// `scorecast_broadcasts_downgraded_total`, and absent until it first moves).
package struct DeviceMetrics: Sendable {
    /// `{outcome, reason}`; reason is APNs' word, or empty for successes.
    package struct OutcomeLabels: MetricLabels {
        package static let names = ["outcome", "reason"]
        package var outcome: String
        package var reason: String
        package var values: [String] { [outcome, reason] }
        package init(outcome: String, reason: String) {
            self.outcome = outcome
            self.reason = reason
        }
    }

    /// `{kind, reason}`.
    package struct PruneLabels: MetricLabels {
        package static let names = ["kind", "reason"]
        package var kind: String
        package var reason: String
        package var values: [String] { [kind, reason] }
        package init(kind: String, reason: String) {
            self.kind = kind
            self.reason = reason
        }
    }

    package let starts: Counter<OutcomeLabels>
    package let updates: Counter<OutcomeLabels>
    package let pruned: Counter<PruneLabels>
    /// Token-path updates lowered from priority 10 to 5 by a spent activity budget.
    package let downgraded: Counter<AppLabels>

    /// Registers the series in `registry`.
    package init(registry: MetricsRegistry) throws(MetricsError) {
        starts = try registry.counter("scorecast_push_to_start_total", help: "Push-to-start sends by outcome (started, failed, retried) and APNs reason.", labels: OutcomeLabels.self)
        updates = try registry.counter("scorecast_activity_updates_total", help: "Updates sent to activities' own push tokens, by outcome and APNs reason.", labels: OutcomeLabels.self)
        downgraded = try registry.counter(
            "scorecast_activity_updates_downgraded_total",
            help: "Updates to activities' own push tokens that wanted priority 10 and went at 5: the activity's budget was spent.",
            labels: AppLabels.self)
        pruned = try registry.counter("scorecast_device_tokens_pruned_total", help: "Device tokens dropped after APNs called them dead, by kind (push-to-start, activity) and reason.", labels: PruneLabels.self)
    }
}
