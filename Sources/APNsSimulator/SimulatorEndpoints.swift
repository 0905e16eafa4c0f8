import Foundation
import JSON
import ScorecastLogging

/// Where a started simulator listens, and the CA file clients must trust.
public struct SimulatorEndpoints: Sendable, Equatable, Codable {
    /// The send port (`/4/broadcasts/apps/…`, `/3/device/…`), HTTP/2 over TLS.
    public let sendPort: Int
    /// The channel-management port (`/1/apps/…/channels`), HTTP/2 over TLS.
    public let managementPort: Int
    /// The admin API port, HTTP/1.1 JSON.
    public let adminPort: Int
    /// The PEM certificate to trust (`curl --cacert`, `CURLOPT_CAINFO`).
    public let caCertificatePath: String

    /// Creates endpoints.
    public init(sendPort: Int, managementPort: Int, adminPort: Int, caCertificatePath: String) {
        self.sendPort = sendPort
        self.managementPort = managementPort
        self.adminPort = adminPort
        self.caCertificatePath = caCertificatePath
    }

    /// The one line printed on start:
    /// `{"sendPort":…,"managementPort":…,"adminPort":…,"caCertificate":"…"}`.
    public var jsonLine: String {
        "{\"sendPort\":\(sendPort),\"managementPort\":\(managementPort),\"adminPort\":\(adminPort),\"caCertificate\":\(JSONValue.quoted(caCertificatePath))}"
    }
}
