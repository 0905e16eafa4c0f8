import DeliveryEngine
import Foundation
import ScorecastCore

// Response bodies of the statistics API. Every count covers the request's window (or one
// bucket of it); every time is RFC 3339 UTC; every latency is in milliseconds.

/// `GET /v1/stats?window=15m`: delivery figures for every app, as totals and a per-minute series.
package struct StatsResponse: Codable, Sendable, Equatable {
    /// The window asked for, e.g. `15m`.
    package var window: StatsWindow
    /// Start of the window (inclusive), aligned to a bucket boundary.
    package var from: Date
    /// End of the window (exclusive).
    package var to: Date
    /// Width of each series bucket in seconds (60: one bucket per minute).
    package var bucketSeconds: Int
    /// Figures over the whole window.
    package var totals: DeliveryFigures
    /// One entry per bucket, oldest first; buckets with no activity are present with zeros.
    package var series: [StatsBucket]
    /// The refused feed events of `totals.events.rejected` by reason (`IngestRefusal`), most first.
    package var refusals: [ReasonCount]

    /// Creates a response.
    package init(
        window: StatsWindow, from: Date, to: Date, bucketSeconds: Int = 60, totals: DeliveryFigures, series: [StatsBucket],
        refusals: [ReasonCount] = []
    ) {
        self.window = window
        self.from = from
        self.to = to
        self.bucketSeconds = bucketSeconds
        self.totals = totals
        self.series = series
        self.refusals = refusals
    }
}

/// The figures of one bucket of a series: its start time plus the same fields as
/// `DeliveryFigures`, flattened into one JSON object (`{"start": …, "sends": …, …}`).
package struct StatsBucket: Codable, Sendable, Equatable {
    /// Start of the bucket (inclusive).
    package var start: Date
    /// What happened in the bucket.
    package var figures: DeliveryFigures

    /// Creates a bucket.
    package init(start: Date, figures: DeliveryFigures) {
        self.start = start
        self.figures = figures
    }

    private enum CodingKeys: String, CodingKey { case start }

    /// Decodes `start` and the flattened figures.
    package init(from decoder: any Decoder) throws {
        start = try decoder.container(keyedBy: CodingKeys.self).decode(Date.self, forKey: .start)
        figures = try DeliveryFigures(from: decoder)
    }

    /// Encodes `start` and the figures side by side in one object.
    package func encode(to encoder: any Encoder) throws {
        try figures.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(start, forKey: .start)
    }
}

/// What happened to feed events and broadcasts over a span of time.
package struct DeliveryFigures: Codable, Sendable, Equatable {
    /// Feed events received, by ingest outcome.
    package var events: EventCounts
    /// Broadcast send attempts, by outcome and by priority.
    package var sends: SendCounts
    /// Failed attempts by APNs reason (or transport failure), most frequent first.
    package var failures: [ReasonCount]
    /// Pending updates replaced by a newer one before they were sent.
    package var coalesced: Int
    /// Alerting updates sent at priority 5 because the channel's priority-10 budget was spent.
    package var downgraded: Int
    /// Sends queued for another attempt (retryable failure or expired lease).
    package var retried: Int
    /// `429 TooManyRequests` answers.
    package var throttled: Int
    /// Latency percentiles.
    package var latency: LatencyFigures

    /// Creates figures.
    package init(
        events: EventCounts, sends: SendCounts, failures: [ReasonCount], coalesced: Int,
        downgraded: Int, retried: Int, throttled: Int, latency: LatencyFigures
    ) {
        self.events = events
        self.sends = sends
        self.failures = failures
        self.coalesced = coalesced
        self.downgraded = downgraded
        self.retried = retried
        self.throttled = throttled
        self.latency = latency
    }

    /// Nothing happened.
    package static let zero = DeliveryFigures(
        events: .zero, sends: .zero, failures: [], coalesced: 0, downgraded: 0, retried: 0,
        throttled: 0, latency: .empty)

    /// Adds the counts of `parts` (e.g. the buckets of a series) into one set of figures.
    /// Percentiles cannot be added, so the caller supplies the latency of the whole span.
    package static func summing(_ parts: [DeliveryFigures], latency: LatencyFigures) -> DeliveryFigures {
        var reasons: [String: Int] = [:]
        for part in parts { for failure in part.failures { reasons[failure.reason, default: 0] += failure.count } }
        return DeliveryFigures(
            events: EventCounts(
                accepted: parts.reduce(0) { $0 + $1.events.accepted },
                duplicate: parts.reduce(0) { $0 + $1.events.duplicate },
                stale: parts.reduce(0) { $0 + $1.events.stale },
                rejected: parts.reduce(0) { $0 + $1.events.rejected }),
            sends: SendCounts(
                accepted: parts.reduce(0) { $0 + $1.sends.accepted },
                retried: parts.reduce(0) { $0 + $1.sends.retried },
                failed: parts.reduce(0) { $0 + $1.sends.failed },
                priority10: parts.reduce(0) { $0 + $1.sends.priority10 },
                priority5: parts.reduce(0) { $0 + $1.sends.priority5 }),
            failures: ReasonCount.sorted(reasons),
            coalesced: parts.reduce(0) { $0 + $1.coalesced },
            downgraded: parts.reduce(0) { $0 + $1.downgraded },
            retried: parts.reduce(0) { $0 + $1.retried },
            throttled: parts.reduce(0) { $0 + $1.throttled },
            latency: latency)
    }
}

/// Feed events by ingest outcome.
package struct EventCounts: Codable, Sendable, Equatable {
    /// Applied to their game.
    package var accepted: Int
    /// Already seen (same feed event id).
    package var duplicate: Int
    /// Older than the game's applied `seq`: stored, no effect.
    package var stale: Int
    /// Refused as invalid.
    package var rejected: Int

    /// Creates counts.
    package init(accepted: Int, duplicate: Int, stale: Int, rejected: Int) {
        self.accepted = accepted
        self.duplicate = duplicate
        self.stale = stale
        self.rejected = rejected
    }

    /// All zero.
    package static let zero = EventCounts(accepted: 0, duplicate: 0, stale: 0, rejected: 0)
}

/// Broadcast send attempts. `total` = `accepted + retried + failed` = `priority10 + priority5`.
package struct SendCounts: Codable, Sendable, Equatable {
    /// Every attempt.
    package var total: Int
    /// APNs answered 2xx.
    package var accepted: Int
    /// Failed, and queued for another attempt.
    package var retried: Int
    /// Failed for good.
    package var failed: Int
    /// Sent with `apns-priority: 10`.
    package var priority10: Int
    /// Sent with `apns-priority: 5`.
    package var priority5: Int

    /// Creates counts; `total` is `accepted + retried + failed`.
    package init(accepted: Int, retried: Int, failed: Int, priority10: Int, priority5: Int) {
        self.total = accepted + retried + failed
        self.accepted = accepted
        self.retried = retried
        self.failed = failed
        self.priority10 = priority10
        self.priority5 = priority5
    }

    /// All zero.
    package static let zero = SendCounts(accepted: 0, retried: 0, failed: 0, priority10: 0, priority5: 0)
}

/// How many failed attempts had one reason.
package struct ReasonCount: Codable, Sendable, Equatable {
    /// The APNs reason (e.g. `TooManyRequests`) or transport failure (e.g. `Timeout`) of failed
    /// sends; the `IngestRefusal` of refused feed events.
    package var reason: String
    /// How many attempts failed, or events were refused, with it.
    package var count: Int

    /// Creates a count.
    package init(reason: String, count: Int) {
        self.reason = reason
        self.count = count
    }

    /// Turns a reason → count map into a list, most frequent first, then by reason.
    package static func sorted(_ counts: [String: Int]) -> [ReasonCount] {
        counts.map { ReasonCount(reason: $0.key, count: $0.value) }
            .sorted { ($0.count, $1.reason) > ($1.count, $0.reason) }
    }
}

/// Latency percentiles of the two legs of a delivery.
package struct LatencyFigures: Codable, Sendable, Equatable {
    /// From event ingest to the send of its broadcast.
    package var ingestToSend: LatencyPercentiles
    /// From the send to APNs' answer.
    package var sendToAnswer: LatencyPercentiles
    /// `ingestToSend` of alerting updates only (those that asked for priority 10: goals, cards,
    /// the final whistle). Routine updates are held back on purpose (shaping), so this is the
    /// figure to hold against the latency target. Absent when the span holds too many attempts
    /// for exact percentiles.
    package var alertingIngestToSend: LatencyPercentiles?

    /// Creates figures.
    package init(ingestToSend: LatencyPercentiles, sendToAnswer: LatencyPercentiles, alertingIngestToSend: LatencyPercentiles? = nil) {
        self.ingestToSend = ingestToSend
        self.sendToAnswer = sendToAnswer
        self.alertingIngestToSend = alertingIngestToSend
    }

    /// No samples on either leg.
    package static let empty = LatencyFigures(ingestToSend: .empty, sendToAnswer: .empty)
}

/// p50, p95 and p99 of a set of latency samples, in milliseconds. The percentiles are absent
/// (omitted from the JSON) when there was no sample.
package struct LatencyPercentiles: Codable, Sendable, Equatable {
    /// How many samples the percentiles come from.
    package var samples: Int
    /// Median, in milliseconds.
    package var p50Ms: Double?
    /// 95th percentile, in milliseconds.
    package var p95Ms: Double?
    /// 99th percentile, in milliseconds.
    package var p99Ms: Double?

    /// Creates percentiles from already computed values.
    package init(samples: Int, p50Ms: Double?, p95Ms: Double?, p99Ms: Double?) {
        self.samples = samples
        self.p50Ms = p50Ms
        self.p95Ms = p95Ms
        self.p99Ms = p99Ms
    }

    /// Computes the percentiles of `samplesMs` (milliseconds) with `Percentile`.
    package init(samplesMs: [Double]) {
        let sorted = samplesMs.filter(\.isFinite).sorted()
        self.init(
            samples: sorted.count,
            p50Ms: Percentile.value(ofSorted: sorted, at: 0.50),
            p95Ms: Percentile.value(ofSorted: sorted, at: 0.95),
            p99Ms: Percentile.value(ofSorted: sorted, at: 0.99))
    }

    /// No samples.
    package static let empty = LatencyPercentiles(samples: 0, p50Ms: nil, p95Ms: nil, p99Ms: nil)
}

/// A channel's priority-10 budget over the rolling hour ending now: what its next send is held to.
package struct ChannelBudgetStatus: Codable, Sendable, Equatable {
    /// The APNs channel id (opaque, as APNs issued it).
    package var channel: String
    /// The bundle id of the app the channel belongs to.
    package var app: String
    /// The game the channel carries, if bound to one.
    package var game: String?
    /// Start of the hour the counts belong to (an hour before the answer's time).
    package var hourStart: Date
    /// Priority-10 sends APNs accepted in this hour.
    package var priority10Used: Int
    /// Priority-10 sends allowed in this window (from the app's budget profile, lowered after 429s).
    package var priority10Limit: Int
    /// Updates sent at priority 5 in this window because the budget was spent.
    package var downgrades: Int
    /// `429 TooManyRequests` answers in this window.
    package var throttled: Int
    /// After a 429, no priority 10 before this (its `Retry-After`, capped by
    /// `SCORECAST_RETRY_AFTER_MAX_SECONDS`); absent when nothing bars it.
    package var priority10BarredUntil: Date?

    /// Creates a budget state.
    package init(
        channel: String, app: String, game: String?, hourStart: Date, priority10Used: Int, priority10Limit: Int, downgrades: Int,
        throttled: Int, priority10BarredUntil: Date? = nil
    ) {
        self.priority10BarredUntil = priority10BarredUntil
        self.channel = channel
        self.app = app
        self.game = game
        self.hourStart = hourStart
        self.priority10Used = priority10Used
        self.priority10Limit = priority10Limit
        self.downgrades = downgrades
        self.throttled = throttled
    }

    /// The status of `channel` from its budget's figures.
    package init(channel: String, app: String, game: String?, usage: BudgetUsage) {
        self.init(
            channel: channel, app: app, game: game, hourStart: usage.windowStart, priority10Used: usage.priority10Used,
            priority10Limit: usage.priority10Limit, downgrades: usage.downgrades, throttled: usage.throttled,
            priority10BarredUntil: usage.barredUntil)
    }

    /// Priority-10 sends left in this window (never negative).
    package var remaining: Int { max(0, priority10Limit - priority10Used) }

    /// Used over limit, 0…1 and beyond (1 when the limit is 0).
    package var utilisation: Double {
        priority10Limit > 0 ? Double(priority10Used) / Double(priority10Limit) : 1
    }

    /// Sorts budgets closest to exhaustion first (then by most downgrades, then channel id).
    package static func closestToLimit(_ budgets: [ChannelBudgetStatus]) -> [ChannelBudgetStatus] {
        budgets.sorted { ($0.utilisation, $0.downgrades, $1.channel) > ($1.utilisation, $1.downgrades, $0.channel) }
    }
}
