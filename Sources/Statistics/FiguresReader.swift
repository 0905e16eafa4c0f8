import Foundation
import Postgres

/// Reads delivery figures for a span and scope: settled minutes from the poller's roll-ups,
/// the rest live from `deliveries` and `events` (with the same definitions,
/// `DeliveryAggregates`), so the figures agree with the `deliveries` table at any moment, even
/// when the poller is behind or not running.
///
/// Latency percentiles are exact (`percentile_cont` over the span's rows) when the span holds
/// at most `exactLatencyLimit` attempts; beyond, they are estimated from the minutes'
/// percentiles weighed by their sample counts, which keeps a 24-hour dashboard cheap.
struct FiguresReader: Sendable {
    let pool: PostgresPool
    /// The most attempts a span may hold for exact latency percentiles.
    var exactLatencyLimit = 200_000

    /// The totals and series of `scope` over `span`.
    func read(_ scope: StatsScope, span: StatsSpan) async throws -> (totals: DeliveryFigures, series: [StatsBucket]) {
        var builder = FiguresBuilder(span: span)
        var settled = span.from
        if scope.hasRollups {
            let rows = try await pool.query("SELECT settled_before FROM stats_rollup_state")
            if let value = try rows.first?.decode("settled_before", as: Date.self) {
                settled = min(max(value, span.from), span.to)
            }
        }
        if settled > span.from {
            try await readRollups(scope, from: span.from, to: settled, into: &builder)
        }
        try await readLive(scope, from: settled, to: span.to, into: &builder)
        try await readRescues(scope, span: span, into: &builder)
        if scope.countsUnattributedEvents {
            try await readUnattributedEvents(from: settled, to: span.to, into: &builder)
        }
        let exact = builder.attempts <= exactLatencyLimit ? try await exactLatency(scope, span: span) : nil
        return builder.build(exact: exact)
    }

    // MARK: - Roll-ups (settled minutes)

    private func readRollups(_ scope: StatsScope, from: Date, to: Date, into builder: inout FiguresBuilder) async throws {
        let minutes = try await pool.query("""
            SELECT minute, sent, failed, retried, throttled, gone, paused, downgraded, coalesced, priority_10, priority_5,
                   ingest_samples, ingest_p50_ms, ingest_p95_ms, ingest_p99_ms, apns_samples, apns_p50_ms, apns_p95_ms, apns_p99_ms
            FROM stats_minute
            WHERE minute >= \(from) AND minute < \(to) AND \(scope.rollupCondition)
            """)
        for row in minutes {
            let minute: Date = try row.decode("minute")
            builder.add(try Self.counts(row), at: minute)
            let (ingest, apns) = try Self.latencyParts(row)
            builder.addLatency(ingest: ingest, apns: apns, at: minute)
        }
        let reasons = try await pool.query("""
            SELECT minute, reason, count FROM stats_minute_reasons
            WHERE minute >= \(from) AND minute < \(to) AND \(scope.rollupCondition)
            """)
        for row in reasons {
            var counts = BucketCounts()
            counts.reasons[try row.decode("reason")] = try row.decode("count", as: Int.self)
            builder.add(counts, at: try row.decode("minute"))
        }
        if scope == .all {
            let events = try await pool.query("""
                SELECT minute, outcome, count FROM stats_minute_events WHERE minute >= \(from) AND minute < \(to)
                """)
            for row in events {
                var counts = BucketCounts()
                counts.events[try row.decode("outcome")] = try row.decode("count", as: Int.self)
                builder.add(counts, at: try row.decode("minute"))
            }
        } else {
            try await readLiveEvents(scope, from: from, to: to, into: &builder)
        }
    }

    // MARK: - Live rows (unsettled minutes, or scopes without roll-ups)

    private func readLive(_ scope: StatsScope, from: Date, to: Date, into builder: inout FiguresBuilder) async throws {
        guard from < to else { return }
        let minutes = try await pool.query("""
            SELECT \(DeliveryAggregates.bucket("sent_at", seconds: 60)) AS minute, \(DeliveryAggregates.columns)
            FROM deliveries
            WHERE sent_at >= \(from) AND sent_at < \(to) AND \(scope.deliveriesCondition)
            GROUP BY 1
            """)
        for row in minutes {
            let minute: Date = try row.decode("minute")
            builder.add(try Self.counts(row), at: minute)
            let (ingest, apns) = try Self.latencyParts(row)
            builder.addLatency(ingest: ingest, apns: apns, at: minute)
        }
        let reasons = try await pool.query("""
            SELECT \(DeliveryAggregates.bucket("sent_at", seconds: 60)) AS minute, \(DeliveryAggregates.reason) AS reason, count(*)::int AS n
            FROM deliveries
            WHERE sent_at >= \(from) AND sent_at < \(to) AND outcome <> 'sent' AND \(scope.deliveriesCondition)
            GROUP BY 1, 2
            """)
        for row in reasons {
            var counts = BucketCounts()
            counts.reasons[try row.decode("reason")] = try row.decode("n", as: Int.self)
            builder.add(counts, at: try row.decode("minute"))
        }
        try await readLiveEvents(scope, from: from, to: to, into: &builder)
    }

    private func readLiveEvents(_ scope: StatsScope, from: Date, to: Date, into builder: inout FiguresBuilder) async throws {
        guard from < to else { return }
        let events = try await pool.query("""
            SELECT \(DeliveryAggregates.bucket("received_at", seconds: 60)) AS minute, outcome, count(*)::int AS n
            FROM events
            WHERE received_at >= \(from) AND received_at < \(to) AND \(scope.eventsCondition)
            GROUP BY 1, 2
            """)
        for row in events {
            var counts = BucketCounts()
            counts.events[try row.decode("outcome")] = try row.decode("n", as: Int.self)
            builder.add(counts, at: try row.decode("minute"))
        }
    }

    /// Rescued leases are written per minute as they happen: read for the whole span.
    private func readRescues(_ scope: StatsScope, span: StatsSpan, into builder: inout FiguresBuilder) async throws {
        guard scope.hasRollups else { return }
        let rows = try await pool.query("""
            SELECT minute, count FROM stats_minute_rescues
            WHERE minute >= \(span.from) AND minute < \(span.to) AND \(scope.rollupCondition)
            """)
        for row in rows {
            var counts = BucketCounts()
            counts.rescued = try row.decode("count")
            builder.add(counts, at: try row.decode("minute"))
        }
    }

    /// Duplicates and rejected events of the unsettled minutes (settled ones came with the roll-ups).
    private func readUnattributedEvents(from: Date, to: Date, into builder: inout FiguresBuilder) async throws {
        guard from < to else { return }
        let rows = try await pool.query("""
            SELECT minute, outcome, count FROM stats_minute_events
            WHERE minute >= \(from) AND minute < \(to) AND outcome IN ('duplicate', 'rejected')
            """)
        for row in rows {
            var counts = BucketCounts()
            counts.events[try row.decode("outcome")] = try row.decode("count", as: Int.self)
            builder.add(counts, at: try row.decode("minute"))
        }
    }

    // MARK: - Exact latency

    private func exactLatency(_ scope: StatsScope, span: StatsSpan) async throws -> FiguresBuilder.ExactLatency {
        let rows = try await pool.query("""
            SELECT \(DeliveryAggregates.bucket("sent_at", seconds: span.bucketSeconds)) AS bucket,
                   count(ingest_to_send_ms) AS ingest_samples,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY ingest_to_send_ms) AS ingest_p50_ms,
                   percentile_cont(0.95) WITHIN GROUP (ORDER BY ingest_to_send_ms) AS ingest_p95_ms,
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY ingest_to_send_ms) AS ingest_p99_ms,
                   count(apns_latency_ms) AS apns_samples,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY apns_latency_ms) AS apns_p50_ms,
                   percentile_cont(0.95) WITHIN GROUP (ORDER BY apns_latency_ms) AS apns_p95_ms,
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY apns_latency_ms) AS apns_p99_ms,
                   count(ingest_to_send_ms) FILTER (WHERE requested_priority = 10) AS alerting_samples,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY ingest_to_send_ms) FILTER (WHERE requested_priority = 10) AS alerting_p50_ms,
                   percentile_cont(0.95) WITHIN GROUP (ORDER BY ingest_to_send_ms) FILTER (WHERE requested_priority = 10) AS alerting_p95_ms,
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY ingest_to_send_ms) FILTER (WHERE requested_priority = 10) AS alerting_p99_ms
            FROM deliveries
            WHERE sent_at >= \(span.from) AND sent_at < \(span.to) AND \(scope.deliveriesCondition)
            GROUP BY GROUPING SETS ((1), ())
            """)
        var exact = FiguresBuilder.ExactLatency(buckets: [:], total: .empty)
        for row in rows {
            let (ingest, apns) = try Self.latencyParts(row)
            // Alerting updates are those that asked for priority 10 (a downgraded one included).
            let alerting = LatencyPercentiles(
                samples: try row.decode("alerting_samples"), p50Ms: try row.decode("alerting_p50_ms", as: Double?.self),
                p95Ms: try row.decode("alerting_p95_ms", as: Double?.self), p99Ms: try row.decode("alerting_p99_ms", as: Double?.self))
            let figures = LatencyFigures(ingestToSend: ingest.percentiles, sendToAnswer: apns.percentiles, alertingIngestToSend: alerting)
            if let bucket = try row.decode("bucket", as: Date?.self) {
                exact.buckets[bucket] = figures
            } else {
                exact.total = figures
            }
        }
        return exact
    }

    // MARK: - Row decoding

    private static func counts(_ row: PostgresRow) throws -> BucketCounts {
        var counts = BucketCounts()
        counts.sent = try row.decode("sent")
        counts.failed = try row.decode("failed")
        counts.retried = try row.decode("retried")
        counts.throttled = try row.decode("throttled")
        counts.gone = try row.decode("gone")
        counts.paused = try row.decode("paused")
        counts.downgraded = try row.decode("downgraded")
        counts.coalesced = try row.decode("coalesced")
        counts.priority10 = try row.decode("priority_10")
        counts.priority5 = try row.decode("priority_5")
        return counts
    }

    private static func latencyParts(_ row: PostgresRow) throws -> (ingest: LatencyPart, apns: LatencyPart) {
        let ingestSamples: Int = try row.decode("ingest_samples")
        let apnsSamples: Int = try row.decode("apns_samples")
        return (
            LatencyPart(
                samples: ingestSamples, p50: try row.decode("ingest_p50_ms", as: Double?.self),
                p95: try row.decode("ingest_p95_ms", as: Double?.self), p99: try row.decode("ingest_p99_ms", as: Double?.self)),
            LatencyPart(
                samples: apnsSamples, p50: try row.decode("apns_p50_ms", as: Double?.self),
                p95: try row.decode("apns_p95_ms", as: Double?.self), p99: try row.decode("apns_p99_ms", as: Double?.self)))
    }
}
