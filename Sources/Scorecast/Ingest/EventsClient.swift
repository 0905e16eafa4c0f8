import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Posts events to a running scorecast (`POST /v1/events`), as a feed would: for
/// `scorecast events send` and for trying things out.
public struct EventsClient: Sendable {
    /// The server's answer.
    public struct Answer: Sendable {
        /// The HTTP status.
        public var status: Int
        /// The body.
        public var body: [UInt8]
    }

    /// Why the request could not be made.
    public struct TransportError: Error, CustomStringConvertible {
        /// What went wrong (never the key).
        public var description: String
    }

    /// The server, e.g. `http://127.0.0.1:8080`.
    public var baseURL: URL
    /// The API key (`sck_…`).
    public var token: String
    /// The signing secret, when the key requires signatures.
    public var signingSecret: SigningSecret?
    /// Deadline of the request.
    public var timeout: TimeInterval

    /// Creates a client.
    public init(baseURL: URL, token: String, signingSecret: SigningSecret? = nil, timeout: TimeInterval = 30) {
        self.baseURL = baseURL
        self.token = token
        self.signingSecret = signingSecret
        self.timeout = timeout
    }

    /// Posts `body` (one event or `{"events": [...]}`) and returns the answer, whatever its status.
    public func send(body: [UInt8], now: Date = Date()) async throws -> Answer {
        let url = baseURL.appendingPathComponent("v1").appendingPathComponent("events")
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let signingSecret {
            let timestamp = Int(now.timeIntervalSince1970)
            request.setValue(String(timestamp), forHTTPHeaderField: RequestSignature.timestampHeader)
            request.setValue(
                RequestSignature.sign(body: body, timestamp: timestamp, secret: signingSecret),
                forHTTPHeaderField: RequestSignature.signatureHeader)
        }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else {
                throw TransportError(description: "\(url.absoluteString) did not answer with HTTP")
            }
            return Answer(status: http.statusCode, body: [UInt8](data))
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(description: "cannot reach \(url.absoluteString): \(error.localizedDescription)")
        }
    }
}
