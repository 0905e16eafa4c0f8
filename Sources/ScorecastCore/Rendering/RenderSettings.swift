/// An app's rendering settings (from the `apps` row): how its Live Activity payloads look.
public struct RenderSettings: Sendable, Hashable {
    /// Key renames and omissions applied to the default content-state.
    public var mapping: ContentStateMapping
    /// How dates inside content-state are written.
    public var dateEncoding: ContentDateEncoding
    /// Localized or plain-text alerts.
    public var alertStyle: AlertStyle
    /// The alert sound (`default`, a bundled file name), or `nil` for silent alerts.
    public var alertSound: String?
    /// Seconds after a `final` or `cancelled` event at which the ended activity leaves the Lock
    /// Screen (`dismissal-date`). Default 30 minutes; Apple's own default without one is 4 hours.
    public var dismissalDelay: Double
    /// `stale-date` per sport.
    public var staleness: StalenessPolicy
    /// `relevance-score` per status.
    public var relevance: RelevancePolicy
    /// Which events alert.
    public var priority: PriorityPolicy

    /// Creates settings; the defaults are the documented defaults of a new app.
    public init(
        mapping: ContentStateMapping = .identity,
        dateEncoding: ContentDateEncoding = .referenceDate,
        alertStyle: AlertStyle = .localized,
        alertSound: String? = "default",
        dismissalDelay: Double = 1800,
        staleness: StalenessPolicy = StalenessPolicy(),
        relevance: RelevancePolicy = .standard,
        priority: PriorityPolicy = PriorityPolicy()
    ) {
        self.mapping = mapping
        self.dateEncoding = dateEncoding
        self.alertStyle = alertStyle
        self.alertSound = alertSound
        self.dismissalDelay = dismissalDelay
        self.staleness = staleness
        self.relevance = relevance
        self.priority = priority
    }
}
