import Postgres

/// The one definition of every delivery figure, as SQL aggregates over `deliveries` rows.
/// The poller's roll-ups and the live reads of the statistics API both use these, so a figure
/// means the same wherever it comes from:
///
/// | figure | rows counted |
/// |---|---|
/// | `sent` | outcome `sent` (APNs answered 2xx) |
/// | `retried` | outcome `retry` |
/// | `failed`, `gone`, `paused` | outcome `failed`, `gone`, `paused` (together: failed attempts) |
/// | `throttled` | status 429 |
/// | `downgraded` | sent at 5 because the budget was spent (`downgraded`, outcome `sent`) |
/// | `coalesced` | sum of `coalesced` over the attempts that settled a payload (`sent`, `failed`, `gone`), so a retried payload counts once |
/// | `priority_10`, `priority_5` | every attempt by `priority` |
/// | latencies | `percentile_cont` (p50/p95/p99) of `ingest_to_send_ms` and `apns_latency_ms`, NULLs ignored |
///
/// Failures by reason: every attempt not `sent`, by `reason` (`unknown` when there is none).
package enum DeliveryAggregates {
    /// Aggregate expressions named like the `stats_minute` columns.
    package static let columns: SQL = """
        count(*) FILTER (WHERE outcome = 'sent') AS sent,
        count(*) FILTER (WHERE outcome = 'failed') AS failed,
        count(*) FILTER (WHERE outcome = 'retry') AS retried,
        count(*) FILTER (WHERE status_code = 429) AS throttled,
        count(*) FILTER (WHERE outcome = 'gone') AS gone,
        count(*) FILTER (WHERE outcome = 'paused') AS paused,
        count(*) FILTER (WHERE downgraded AND outcome = 'sent') AS downgraded,
        coalesce(sum(coalesced) FILTER (WHERE outcome IN ('sent', 'failed', 'gone')), 0) AS coalesced,
        count(*) FILTER (WHERE priority = 10) AS priority_10,
        count(*) FILTER (WHERE priority = 5) AS priority_5,
        count(ingest_to_send_ms) AS ingest_samples,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY ingest_to_send_ms) AS ingest_p50_ms,
        percentile_cont(0.95) WITHIN GROUP (ORDER BY ingest_to_send_ms) AS ingest_p95_ms,
        percentile_cont(0.99) WITHIN GROUP (ORDER BY ingest_to_send_ms) AS ingest_p99_ms,
        count(apns_latency_ms) AS apns_samples,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY apns_latency_ms) AS apns_p50_ms,
        percentile_cont(0.95) WITHIN GROUP (ORDER BY apns_latency_ms) AS apns_p95_ms,
        percentile_cont(0.99) WITHIN GROUP (ORDER BY apns_latency_ms) AS apns_p99_ms
        """

    /// The column names `columns` produces, in order.
    package static let names = [
        "sent", "failed", "retried", "throttled", "gone", "paused", "downgraded", "coalesced", "priority_10", "priority_5",
        "ingest_samples", "ingest_p50_ms", "ingest_p95_ms", "ingest_p99_ms",
        "apns_samples", "apns_p50_ms", "apns_p95_ms", "apns_p99_ms",
    ]

    /// The failed attempts' reason expression (for rows with `outcome <> 'sent'`).
    package static let reason: SQL = "coalesce(reason, 'unknown')"

    /// The start of the `seconds`-long bucket holding `column`, aligned to 1970-01-01 UTC
    /// whatever the session's time zone.
    package static func bucket(_ column: String, seconds: Int) -> SQL {
        "date_bin(make_interval(secs => \(unsafeSQL: String(max(1, seconds)))), \(unsafeSQL: column), TIMESTAMPTZ '1970-01-01 00:00:00+00')"
    }
}
