import PrometheusMetrics
import ScorecastCore
import ServiceBase

extension ScorecastMetrics {
    /// Counts the send attempts of one written batch, with the definitions of `/v1/stats`
    /// (``DeliveryAggregates``), so that a scrape and the statistics API agree:
    ///
    /// - `broadcasts_sent_total{outcome}`: `accepted` (2xx), `retried`, `failed` (failed, gone
    ///   or paused), by the priority sent;
    /// - `broadcast_failures_total{reason}`: every attempt not accepted, by reason;
    /// - `updates_coalesced_total`: the updates a settled payload replaced (sent, failed, gone;
    ///   a retried payload counts once, when it settles);
    /// - `downgraded`, `retried`, `throttled` (status 429), and both latency histograms.
    ///
    /// `completions` are the ones the store wrote (fenced-out ones wrote nothing and are left
    /// out by the caller); `bundleIDs` names each completion's app.
    func recordDeliveries(_ completions: [DeliveryCompletion], bundleIDs: [Int64: String]) {
        for completion in completions {
            guard let delivery = completion.delivery else { continue }
            let app = AppLabels(app: bundleIDs[completion.appID] ?? "unknown")
            let outcome: SendMetricOutcome = switch delivery.outcome {
            case .sent: .accepted
            case .retry: .retried
            case .failed, .gone, .paused: .failed
            }
            broadcastsSent.increment(SendLabels(app: app.app, outcome: outcome, priority: delivery.priority))
            if delivery.outcome != .sent {
                broadcastFailures.increment(FailureLabels(app: app.app, reason: delivery.reason ?? "unknown"))
            }
            if delivery.outcome == .retry { retried.increment(app) }
            if delivery.statusCode == 429 { throttled.increment(app) }
            if delivery.downgraded && delivery.outcome == .sent { downgraded.increment(app) }
            if [.sent, .failed, .gone].contains(delivery.outcome), delivery.coalesced > 0 {
                coalesced.increment(app, by: Double(delivery.coalesced))
            }
            if let milliseconds = delivery.ingestToSendMilliseconds { ingestToSend.observe(milliseconds / 1000, app) }
            if let milliseconds = delivery.apnsLatencyMilliseconds { sendToAnswer.observe(milliseconds / 1000, app) }
        }
    }
}
