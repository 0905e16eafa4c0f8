import PrometheusMetrics
/// The standard `scorecast_*` metrics, registered once at start-up and shared by ingest, the
/// workers, the APNs client and the poller. Every label comes from a small set (app bundle id,
/// outcome, reason, priority, pool): never a channel id or a device token.
package struct ScorecastMetrics: Sendable {
    /// `scorecast_events_ingested_total{feed,outcome,reason}`: feed events by ingest outcome
    /// (accepted, duplicate, stale, rejected), the rejected ones by reason.
    package let eventsIngested: Counter<IngestLabels>
    /// `scorecast_event_fields_ignored_total{feed}`: unknown fields in accepted feed events,
    /// passed over rather than refusing the event (a feed sending fields of its own, or a typo).
    package let eventFieldsIgnored: Counter<FeedLabels>
    /// `scorecast_events_without_short_name_total{feed}`: goals and cards that name a player but
    /// give no `shortName`, so the lock screen shows the feed's full `player` name.
    package let eventsWithoutShortName: Counter<FeedLabels>
    /// `scorecast_content_states_fitted_total{feed}`: accepted events whose Live Activity update
    /// gave something up (older plays folded, texts cut, optional fields dropped) to fit 4 KB.
    package let contentStatesFitted: Counter<FeedLabels>
    /// `scorecast_broadcasts_sent_total{app,outcome,priority}`: broadcast send attempts.
    package let broadcastsSent: Counter<SendLabels>
    /// `scorecast_broadcast_failures_total{app,reason}`: failed attempts by APNs or transport reason.
    package let broadcastFailures: Counter<FailureLabels>
    /// `scorecast_updates_coalesced_total{app}`: pending updates replaced by a newer one before
    /// sending, counted when the payload that replaced them is settled (as `/v1/stats` does).
    package let coalesced: Counter<AppLabels>
    /// `scorecast_broadcasts_downgraded_total{app}`: priority-10 updates sent at priority 5 because the
    /// channel's hourly budget was spent.
    package let downgraded: Counter<AppLabels>
    /// `scorecast_broadcasts_retried_total{app}`: sends queued for another attempt (after a retryable
    /// failure, or rescued from an expired lease).
    package let retried: Counter<AppLabels>
    /// `scorecast_broadcasts_throttled_total{app}`: `429 TooManyRequests` answers.
    package let throttled: Counter<AppLabels>
    /// `scorecast_ingest_to_send_seconds{app}`: from event ingest to the send of its broadcast.
    package let ingestToSend: Histogram<AppLabels>
    /// `scorecast_apns_response_seconds{app}`: from a send to APNs' answer.
    package let sendToAnswer: Histogram<AppLabels>
    /// `scorecast_outbox_pending`: outbox rows waiting to be sent.
    package let queueDepth: Gauge<NoLabels>
    /// `scorecast_outbox_oldest_pending_age_seconds`: age of the oldest due outbox row (0 when empty).
    package let oldestPendingAge: Gauge<NoLabels>
    /// `scorecast_sends_in_flight`: broadcasts sent and not yet answered.
    package let inFlightSends: Gauge<NoLabels>
    /// `scorecast_apns_connections{pool}`: open HTTP/2 connections to APNs.
    package let apnsConnections: Gauge<ConnectionLabels>
    /// `scorecast_channels{app}`: channels counting against the app's 10,000-channel limit.
    package let channels: Gauge<AppLabels>

    /// Registers every metric in `registry`; throws if one of the names is already taken.
    package init(registry: MetricsRegistry) throws(MetricsError) {
        eventsIngested = try registry.counter(
            "scorecast_events_ingested_total",
            help: "Feed events received, by ingest outcome (accepted, duplicate, stale, rejected), rejected ones by reason (unauthorized, invalid, unknown_game…).",
            labels: IngestLabels.self)
        eventFieldsIgnored = try registry.counter(
            "scorecast_event_fields_ignored_total",
            help: "Unknown fields in feed events, ignored rather than refusing the event.",
            labels: FeedLabels.self)
        eventsWithoutShortName = try registry.counter(
            "scorecast_events_without_short_name_total",
            help: "Goals and cards naming a player without a shortName: the lock screen shows the full name.",
            labels: FeedLabels.self)
        contentStatesFitted = try registry.counter(
            "scorecast_content_states_fitted_total",
            help: "Accepted events whose Live Activity update was cut down to fit 4 KB.",
            labels: FeedLabels.self)
        broadcastsSent = try registry.counter(
            "scorecast_broadcasts_sent_total",
            help: "Broadcast send attempts, by outcome (accepted, retried, failed) and apns-priority.",
            labels: SendLabels.self)
        broadcastFailures = try registry.counter(
            "scorecast_broadcast_failures_total",
            help: "Failed broadcast attempts, by APNs reason or transport failure.",
            labels: FailureLabels.self)
        coalesced = try registry.counter(
            "scorecast_updates_coalesced_total",
            help: "Pending updates replaced by a newer one before they were sent.",
            labels: AppLabels.self)
        downgraded = try registry.counter(
            "scorecast_broadcasts_downgraded_total",
            help: "Alerting updates sent at priority 5 because the channel's priority-10 budget was spent.",
            labels: AppLabels.self)
        retried = try registry.counter(
            "scorecast_broadcasts_retried_total",
            help: "Sends queued for another attempt after a retryable failure or an expired lease.",
            labels: AppLabels.self)
        throttled = try registry.counter(
            "scorecast_broadcasts_throttled_total",
            help: "APNs answers 429 TooManyRequests.",
            labels: AppLabels.self)
        ingestToSend = try registry.histogram(
            "scorecast_ingest_to_send_seconds",
            help: "Time from event ingest to the send of its broadcast.",
            buckets: Histogram<AppLabels>.latencyBuckets, labels: AppLabels.self)
        sendToAnswer = try registry.histogram(
            "scorecast_apns_response_seconds",
            help: "Time from a broadcast send to APNs' answer.",
            buckets: Histogram<AppLabels>.latencyBuckets, labels: AppLabels.self)
        queueDepth = try registry.gauge(
            "scorecast_outbox_pending", help: "Outbox rows waiting to be sent.")
        oldestPendingAge = try registry.gauge(
            "scorecast_outbox_oldest_pending_age_seconds",
            help: "Age of the oldest due outbox row, 0 when none is due.")
        inFlightSends = try registry.gauge(
            "scorecast_sends_in_flight", help: "Broadcasts sent and not yet answered.")
        apnsConnections = try registry.gauge(
            "scorecast_apns_connections", help: "Open HTTP/2 connections to APNs, by host pool.",
            labels: ConnectionLabels.self)
        channels = try registry.gauge(
            "scorecast_channels",
            help: "Channels counting against the app's 10,000-channel limit (active and retiring).",
            labels: AppLabels.self)
    }
}
