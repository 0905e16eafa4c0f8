import HTTPServer
import PrometheusMetrics
import ScorecastLogging
import Statistics

/// `GET /metrics`: the process's metrics as Prometheus text, the database gauges refreshed at
/// scrape time when this process exports them (`MetricsRefresher`). Served by every `serve`,
/// whatever its roles, so that each process's own counters are scraped from it. An operator
/// route, guarded by `access`.
struct MetricsEndpoint: Sendable {
    let registry: MetricsRegistry
    let refresher: MetricsRefresher?
    let access: OpsAccess
    /// Refresh failures, summarised: while the database is away every scrape fails alike.
    let repeats: RepeatLog

    func register(on router: inout Router) {
        router.get("/metrics", gate: access.gate) { _ in
            if let refresher {
                do {
                    try await refresher.refresh()
                } catch {
                    // The process's own metrics are still worth serving.
                    repeats.warning("could not refresh the database gauges for /metrics; serving the last ones", ["error": "\(error)"])
                }
            }
            let text = registry.render(omitting: refresher?.omittedNow ?? [])
            return HTTPResponse(status: .ok, headers: ["Content-Type": MetricsRegistry.contentType], body: Array(text.utf8))
        }
    }
}
