import APNs
import APNsCore
import PrometheusMetrics
import ScorecastCore

/// What came of one broadcast send attempt.
package enum SendMetricOutcome: String, Sendable, Codable, CaseIterable {
    /// APNs answered 2xx: accepted (which is not the same as shown on a phone).
    case accepted
    /// The attempt failed in a way worth another try (429, 5xx, timeout, reset…): it was queued again.
    case retried
    /// The attempt failed for good (terminal APNs reason, or retries exhausted).
    case failed
}

/// Labels `{app}`: an app's bundle id.
package struct AppLabels: MetricLabels {
    /// `["app"]`.
    package static let names = ["app"]
    /// The app's bundle id.
    package var app: String
    /// `[app]`.
    package var values: [String] { [app] }
    /// Creates the labels for `app`.
    package init(app: String) { self.app = app }
}

/// Labels `{feed}`: the feed's API key name (admins create a handful).
package struct FeedLabels: MetricLabels {
    /// `["feed"]`.
    package static let names = ["feed"]
    /// The feed's key name.
    package var feed: String
    /// `[feed]`.
    package var values: [String] { [feed] }
    /// Creates the labels for `feed`.
    package init(feed: String) { self.feed = feed }
}

/// Labels `{feed, outcome, reason}` of a received feed event: one of ingest's `IngestOutcome`s
/// (`accepted`, `duplicate`, `stale`) with an empty reason, or `rejected` for the events of a
/// refused request with its `IngestRefusal` (`unauthorized`, `invalid`…). Events belong to games,
/// not apps; the feed is the API key's name (admins create a handful), empty before a request
/// is authenticated.
package struct IngestLabels: MetricLabels {
    /// `["feed", "outcome", "reason"]`.
    package static let names = ["feed", "outcome", "reason"]
    /// The label value of events in a refused request.
    package static let rejectedOutcome = "rejected"
    /// The feed's API key name.
    package var feed: String
    /// `accepted`, `duplicate`, `stale` or `rejected`.
    package private(set) var outcome: String
    /// Why a rejected event was refused; empty for the others.
    package private(set) var reason: String = ""
    /// `[feed, outcome, reason]`.
    package var values: [String] { [feed, outcome, reason] }

    /// Labels for an event ingest decided about.
    package init(feed: String, outcome: IngestOutcome) {
        self.feed = feed
        self.outcome = outcome.rawValue
    }

    /// Labels for an event of a request ingest refused for `reason`.
    package static func rejected(feed: String, reason: IngestRefusal) -> IngestLabels {
        var labels = IngestLabels(feed: feed, outcome: .accepted)
        labels.outcome = rejectedOutcome
        labels.reason = reason.rawValue
        return labels
    }
}

/// Labels `{app, outcome, priority}` of a broadcast send attempt.
package struct SendLabels: MetricLabels {
    /// `["app", "outcome", "priority"]`.
    package static let names = ["app", "outcome", "priority"]
    /// The app's bundle id.
    package var app: String
    /// What came of the attempt.
    package var outcome: SendMetricOutcome
    /// The `apns-priority` it was sent with (label value `10`, `5` or `1`).
    package var priority: BroadcastPriority
    /// `[app, outcome, priority]`.
    package var values: [String] { [app, outcome.rawValue, priority.headerValue] }
    /// Creates the labels.
    package init(app: String, outcome: SendMetricOutcome, priority: BroadcastPriority) {
        self.app = app
        self.outcome = outcome
        self.priority = priority
    }
}

/// Labels `{app, reason}` of a failed send attempt.
package struct FailureLabels: MetricLabels {
    /// `["app", "reason"]`.
    package static let names = ["app", "reason"]
    /// The app's bundle id.
    package var app: String
    /// The APNs reason (e.g. `TooManyRequests`) or a transport failure name (e.g. `Timeout`),
    /// as cleaned by `FailureLabels.reasonLabel(_:)`.
    package var reason: String
    /// `[app, reason]`.
    package var values: [String] { [app, reason] }
    /// Creates the labels; `reason` is cleaned so that a malformed answer cannot mint odd values.
    package init(app: String, reason: String) {
        self.app = app
        self.reason = Self.reasonLabel(reason)
    }

    /// Keeps an APNs reason (CamelCase letters, digits, `_`, `.`, `-`; unknown ones too) verbatim.
    /// A transport failure or refusal described in words ("connection reset", "invalid
    /// credentials: …") becomes its words before any `:`, joined by `_` ("connection_reset"),
    /// so the label names the cause without the free text. Empty → `unknown`; whatever is still
    /// odd or longer than 64 characters → `invalid`.
    package static func reasonLabel(_ reason: String) -> String {
        if reason.isEmpty { return "unknown" }
        func allowed(_ scalar: Unicode.Scalar) -> Bool {
            (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))) || scalar == "_" || scalar == "." || scalar == "-"
        }
        let cause = reason.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let words = cause.split(separator: " ").map(String.init)
        let label = words.joined(separator: "_")
        guard !label.isEmpty, label.utf8.count <= 64, label.unicodeScalars.allSatisfy(allowed) else { return "invalid" }
        return label
    }
}

/// Labels `{pool}` of an APNs connection count.
package struct ConnectionLabels: MetricLabels {
    /// `["pool"]`.
    package static let names = ["pool"]
    /// Which host the connections talk to.
    package var pool: APNsHost
    /// `[pool]`.
    package var values: [String] { [pool.rawValue] }
    /// Creates the labels.
    package init(pool: APNsHost) { self.pool = pool }
}
