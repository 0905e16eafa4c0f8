import APNs
import PrometheusMetrics

/// Keeps `scorecast_apns_connections{pool}` equal to the connections the APNs clients hold
/// open: every client tells it of each connection libcurl opens or closes.
package struct APNsConnectionGauge: APNsConnectionObserver {
    let gauge: Gauge<ConnectionLabels>

    /// Starts both pools at 0, so the gauge has a sample before the first connection.
    package init(_ gauge: Gauge<ConnectionLabels>) {
        self.gauge = gauge
        for host in APNsHost.allCases { gauge.set(ConnectionLabels(pool: host), to: 0) }
    }

    /// Moves the pool's sample by `delta`.
    package func connectionsChanged(host: APNsHost, delta: Int) {
        gauge.increment(ConnectionLabels(pool: host), by: Double(delta))
    }
}
