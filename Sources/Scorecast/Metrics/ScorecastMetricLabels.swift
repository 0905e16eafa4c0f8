import ScorecastCore

/// What came of one broadcast send attempt.
public enum SendMetricOutcome: String, Sendable, Codable, CaseIterable {
    /// APNs answered 2xx: accepted (which is not the same as shown on a phone).
    case accepted
    /// The attempt failed in a way worth another try (429, 5xx, timeout, reset…): it was queued again.
    case retried
    /// The attempt failed for good (terminal APNs reason, or retries exhausted).
    case failed
}

/// Which APNs host a connection talks to.
public enum APNsPool: String, Sendable, CaseIterable {
    /// Broadcast sends and device pushes (`api[.sandbox].push.apple.com`).
    case send
    /// Channel management (`api-manage-broadcast…`).
    case management
}

/// Labels `{app}`: an app's bundle id.
public struct AppLabels: MetricLabels {
    /// `["app"]`.
    public static let names = ["app"]
    /// The app's bundle id.
    public var app: String
    /// `[app]`.
    public var values: [String] { [app] }
    /// Creates the labels for `app`.
    public init(app: String) { self.app = app }
}

/// Labels `{app, outcome}` of a received feed event: one of ingest's `IngestOutcome`s
/// (`accepted`, `duplicate`, `stale`), or `rejected` for the events of a refused request.
public struct IngestLabels: MetricLabels {
    /// `["app", "outcome"]`.
    public static let names = ["app", "outcome"]
    /// The label value of events in a refused request.
    public static let rejectedOutcome = "rejected"
    /// The app's bundle id (`unknown` when the request was refused before its app was known).
    public var app: String
    /// `accepted`, `duplicate`, `stale` or `rejected`.
    public private(set) var outcome: String
    /// `[app, outcome]`.
    public var values: [String] { [app, outcome] }

    /// Labels for an event ingest decided about.
    public init(app: String, outcome: IngestOutcome) {
        self.app = app
        self.outcome = outcome.rawValue
    }

    /// Labels for an event of a request ingest refused (`400`, `413`, `415`, `422`).
    public static func rejected(app: String) -> IngestLabels {
        var labels = IngestLabels(app: app, outcome: .accepted)
        labels.outcome = rejectedOutcome
        return labels
    }
}

/// Labels `{app, outcome, priority}` of a broadcast send attempt.
public struct SendLabels: MetricLabels {
    /// `["app", "outcome", "priority"]`.
    public static let names = ["app", "outcome", "priority"]
    /// The app's bundle id.
    public var app: String
    /// What came of the attempt.
    public var outcome: SendMetricOutcome
    /// The `apns-priority` it was sent with (label value `10`, `5` or `1`).
    public var priority: BroadcastPriority
    /// `[app, outcome, priority]`.
    public var values: [String] { [app, outcome.rawValue, priority.headerValue] }
    /// Creates the labels.
    public init(app: String, outcome: SendMetricOutcome, priority: BroadcastPriority) {
        self.app = app
        self.outcome = outcome
        self.priority = priority
    }
}

/// Labels `{app, reason}` of a failed send attempt.
public struct FailureLabels: MetricLabels {
    /// `["app", "reason"]`.
    public static let names = ["app", "reason"]
    /// The app's bundle id.
    public var app: String
    /// The APNs reason (e.g. `TooManyRequests`) or a transport failure name (e.g. `Timeout`),
    /// as cleaned by `FailureLabels.reasonLabel(_:)`.
    public var reason: String
    /// `[app, reason]`.
    public var values: [String] { [app, reason] }
    /// Creates the labels; `reason` is cleaned so that a malformed answer cannot mint odd values.
    public init(app: String, reason: String) {
        self.app = app
        self.reason = Self.reasonLabel(reason)
    }

    /// Keeps a reason made of at most 64 letters, digits, `_`, `.` or `-` verbatim (APNs' reasons
    /// are CamelCase words; unknown ones are kept too), maps an empty one to `unknown` and
    /// anything else to `invalid`.
    public static func reasonLabel(_ reason: String) -> String {
        if reason.isEmpty { return "unknown" }
        let allowed = reason.utf8.count <= 64 && reason.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_" || $0 == "." || $0 == "-"
        }
        return allowed ? reason : "invalid"
    }
}

/// Labels `{pool}` of an APNs connection count.
public struct ConnectionLabels: MetricLabels {
    /// `["pool"]`.
    public static let names = ["pool"]
    /// Which host the connections talk to.
    public var pool: APNsPool
    /// `[pool]`.
    public var values: [String] { [pool.rawValue] }
    /// Creates the labels.
    public init(pool: APNsPool) { self.pool = pool }
}
