import CurlHTTP
import Foundation
import ServiceBase

/// Posts events to a running scorecast (`POST /v1/events`), as a feed would: for
/// `scorecast events send` and for trying things out.
package struct EventsClient: Sendable {
    /// The server's answer.
    package struct Answer: Sendable {
        /// The HTTP status.
        package var status: Int
        /// The body.
        package var body: [UInt8]
    }

    /// Why the request could not be made.
    package struct TransportError: Error, CustomStringConvertible {
        /// What went wrong (never the key).
        package var description: String
    }

    /// The server, e.g. `http://127.0.0.1:8080`.
    package var baseURL: URL
    /// The API key (`sck_…`).
    package var token: String
    /// The signing secret, when the key requires signatures.
    package var signingSecret: SigningSecret?
    /// Deadline of the request.
    package var timeout: TimeInterval

    /// Creates a client.
    package init(baseURL: URL, token: String, signingSecret: SigningSecret? = nil, timeout: TimeInterval = 30) {
        self.baseURL = baseURL
        self.token = token
        self.signingSecret = signingSecret
        self.timeout = timeout
    }

    /// Posts `body` (one event or `{"events": [...]}`) and returns the answer, whatever its status.
    /// A signed request is dated `now`: the server refuses it unless that is within its tolerance
    /// of the server's own clock.
    package func send(body: [UInt8], now: Date) async throws -> Answer {
        let url = baseURL.appendingPathComponent("v1").appendingPathComponent("events").absoluteString
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json"), ("Authorization", "Bearer \(token)")]
        if let signingSecret {
            let timestamp = Int(now.timeIntervalSince1970)
            headers.append((RequestSignature.timestampHeader, String(timestamp)))
            headers.append((RequestSignature.signatureHeader, RequestSignature.sign(body: body, timestamp: timestamp, secret: signingSecret)))
        }
        do {
            let answer = try await CurlHTTPConnection.perform(CurlHTTPRequest(method: "POST", url: url, headers: headers, body: body),
                                                              timeout: .milliseconds(Int(timeout * 1000)))
            return Answer(status: answer.status, body: answer.body)
        } catch {
            throw TransportError(description: "cannot reach \(url): \(error.description)")
        }
    }
}
