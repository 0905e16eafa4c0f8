import Foundation

/// Counts of one bucket as read from the roll-ups and from live rows, added up before they
/// become `DeliveryFigures`.
struct BucketCounts: Sendable, Equatable {
    var sent = 0
    var retried = 0
    var failed = 0
    var gone = 0
    var paused = 0
    var throttled = 0
    var downgraded = 0
    var coalesced = 0
    var priority10 = 0
    var priority5 = 0
    /// Expired leases made claimable again.
    var rescued = 0
    /// Feed events by ingest outcome (`accepted`, `duplicate`, `stale`, `rejected`).
    var events: [String: Int] = [:]
    /// Failed attempts by reason.
    var reasons: [String: Int] = [:]

    /// Send attempts of every outcome.
    var attempts: Int { sent + retried + failed + gone + paused }

    static func += (lhs: inout BucketCounts, rhs: BucketCounts) {
        lhs.sent += rhs.sent
        lhs.retried += rhs.retried
        lhs.failed += rhs.failed
        lhs.gone += rhs.gone
        lhs.paused += rhs.paused
        lhs.throttled += rhs.throttled
        lhs.downgraded += rhs.downgraded
        lhs.coalesced += rhs.coalesced
        lhs.priority10 += rhs.priority10
        lhs.priority5 += rhs.priority5
        lhs.rescued += rhs.rescued
        lhs.events.merge(rhs.events, uniquingKeysWith: +)
        lhs.reasons.merge(rhs.reasons, uniquingKeysWith: +)
    }

    /// The API's figures for these counts and `latency`.
    func figures(latency: LatencyFigures) -> DeliveryFigures {
        DeliveryFigures(
            events: EventCounts(
                accepted: events["accepted"] ?? 0, duplicate: events["duplicate"] ?? 0,
                stale: events["stale"] ?? 0, rejected: events["rejected"] ?? 0),
            sends: SendCounts(
                accepted: sent, retried: retried, failed: failed + gone + paused,
                priority10: priority10, priority5: priority5),
            failures: ReasonCount.sorted(reasons),
            coalesced: coalesced, downgraded: downgraded, retried: retried + rescued, throttled: throttled,
            latency: latency)
    }
}

/// Percentiles of a part of a span (a minute's roll-up, or live rows) with their sample count,
/// to be combined into an estimate when exact percentiles over the whole span are too costly.
struct LatencyPart: Sendable, Equatable {
    var samples: Int
    var p50: Double?
    var p95: Double?
    var p99: Double?

    /// Percentiles cannot be added: this weighs each part's percentile by its sample count, an
    /// estimate that is exact when the parts have similar distributions. Pure.
    static func estimate(_ parts: [LatencyPart]) -> LatencyPercentiles {
        let used = parts.filter { $0.samples > 0 }
        let samples = used.reduce(0) { $0 + $1.samples }
        guard samples > 0 else { return .empty }
        func weighted(_ value: KeyPath<LatencyPart, Double?>) -> Double? {
            let known = used.compactMap { part in part[keyPath: value].map { (part.samples, $0) } }
            let weight = known.reduce(0) { $0 + $1.0 }
            guard weight > 0 else { return nil }
            return known.reduce(0.0) { $0 + Double($1.0) * $1.1 } / Double(weight)
        }
        return LatencyPercentiles(samples: samples, p50Ms: weighted(\.p50), p95Ms: weighted(\.p95), p99Ms: weighted(\.p99))
    }

    /// This part as percentiles.
    var percentiles: LatencyPercentiles { LatencyPercentiles(samples: samples, p50Ms: p50, p95Ms: p95, p99Ms: p99) }
}

/// Collects counts and latencies by bucket and turns them into the API's totals and series
/// (every bucket present, zeros where nothing happened). Pure.
struct FiguresBuilder: Sendable {
    let span: StatsSpan
    private(set) var counts: [Date: BucketCounts] = [:]
    private var ingestParts: [Date: [LatencyPart]] = [:]
    private var apnsParts: [Date: [LatencyPart]] = [:]

    init(span: StatsSpan) { self.span = span }

    /// Adds counts to the bucket holding `time`.
    mutating func add(_ more: BucketCounts, at time: Date) {
        counts[span.bucket(of: time), default: BucketCounts()] += more
    }

    /// Adds latency parts (for the estimate) to the bucket holding `time`.
    mutating func addLatency(ingest: LatencyPart, apns: LatencyPart, at time: Date) {
        ingestParts[span.bucket(of: time), default: []].append(ingest)
        apnsParts[span.bucket(of: time), default: []].append(apns)
    }

    /// Send attempts over the whole span.
    var attempts: Int { counts.values.reduce(0) { $0 + $1.attempts } }

    /// Exact latencies per bucket and over the span, as computed by the database.
    struct ExactLatency: Sendable {
        var buckets: [Date: LatencyFigures]
        var total: LatencyFigures
    }

    /// The totals and the series; latencies are `exact` when given, else estimated from the parts.
    func build(exact: ExactLatency?) -> (totals: DeliveryFigures, series: [StatsBucket]) {
        var parts: [DeliveryFigures] = []
        var series: [StatsBucket] = []
        for start in span.bucketStarts {
            let latency: LatencyFigures
            if let exact {
                latency = exact.buckets[start] ?? LatencyFigures(ingestToSend: .empty, sendToAnswer: .empty, alertingIngestToSend: .empty)
            } else {
                latency = LatencyFigures(
                    ingestToSend: LatencyPart.estimate(ingestParts[start] ?? []),
                    sendToAnswer: LatencyPart.estimate(apnsParts[start] ?? []))
            }
            let figures = (counts[start] ?? BucketCounts()).figures(latency: latency)
            parts.append(figures)
            series.append(StatsBucket(start: start, figures: figures))
        }
        let totalLatency = exact?.total ?? LatencyFigures(
            ingestToSend: LatencyPart.estimate(ingestParts.values.flatMap { $0 }),
            sendToAnswer: LatencyPart.estimate(apnsParts.values.flatMap { $0 }))
        return (DeliveryFigures.summing(parts, latency: totalLatency), series)
    }
}
