import PrometheusMetrics
/// The device side's `/metrics` series, counted by this process as it sends:
/// `scorecast_push_to_start_total{outcome, reason}` (outcome `started`, `failed`, `retried`),
/// `scorecast_device_tokens_pruned_total{kind, reason}` (kind `push-to-start` or `activity`) and
/// `scorecast_activity_updates_total{outcome, reason}` (token-path updates) and
/// `scorecast_activity_updates_downgraded_total{app}` (token-path updates sent at priority 5
/// because the activity's priority-10 budget was spent; per app like
/// `scorecast_broadcasts_downgraded_total`, and absent until it first moves).
public struct DeviceMetrics: Sendable {
    /// `{outcome, reason}`; reason is APNs' word, or empty for successes.
    public struct OutcomeLabels: MetricLabels {
        public static let names = ["outcome", "reason"]
        public var outcome: String
        public var reason: String
        public var values: [String] { [outcome, reason] }
        public init(outcome: String, reason: String) {
            self.outcome = outcome
            self.reason = reason
        }
    }

    /// `{kind, reason}`.
    public struct PruneLabels: MetricLabels {
        public static let names = ["kind", "reason"]
        public var kind: String
        public var reason: String
        public var values: [String] { [kind, reason] }
        public init(kind: String, reason: String) {
            self.kind = kind
            self.reason = reason
        }
    }

    public let starts: Counter<OutcomeLabels>
    public let updates: Counter<OutcomeLabels>
    public let pruned: Counter<PruneLabels>
    /// Token-path updates lowered from priority 10 to 5 by a spent activity budget.
    public let downgraded: Counter<AppLabels>

    /// Registers the series in `registry`.
    public init(registry: MetricsRegistry) throws(MetricsError) {
        starts = try registry.counter("scorecast_push_to_start_total", help: "Push-to-start sends by outcome (started, failed, retried) and APNs reason.", labels: OutcomeLabels.self)
        updates = try registry.counter("scorecast_activity_updates_total", help: "Updates sent to activities' own push tokens, by outcome and APNs reason.", labels: OutcomeLabels.self)
        downgraded = try registry.counter(
            "scorecast_activity_updates_downgraded_total",
            help: "Updates to activities' own push tokens that wanted priority 10 and went at 5: the activity's budget was spent.",
            labels: AppLabels.self)
        pruned = try registry.counter("scorecast_device_tokens_pruned_total", help: "Device tokens dropped after APNs called them dead, by kind (push-to-start, activity) and reason.", labels: PruneLabels.self)
    }
}
