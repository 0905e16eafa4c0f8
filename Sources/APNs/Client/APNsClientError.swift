import APNsCore

/// A request that got no APNs answer: it was refused before sending, never reached the server,
/// was cut off, or was cancelled. An answer from APNs, even a failure such as `400`, is an
/// `APNsResponse`, not this error.
///
/// The message names what went wrong and never contains a provider token or key material.
public struct APNsClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The request broke a rule checked before sending (bundle id, channel id, size…).
        case invalidRequest
        /// The client's configuration is unusable (endpoint, limits, token age).
        case invalidConfiguration
        /// The credentials could not produce a provider token (key unusable, ids malformed).
        case invalidCredentials
        /// The deadline passed before an answer arrived.
        case timeout
        /// No connection could be opened (refused, unreachable, DNS).
        case connectionFailed
        /// TLS failed: handshake, certificate verification or the CA file.
        case tlsFailure
        /// The connection broke or the stream was reset after the request may have been sent.
        case connectionLost
        /// The server answered with something that is not a usable HTTP/2 response.
        case invalidResponse
        /// The caller's task was cancelled.
        case cancelled
        /// The client was shut down before the request finished.
        case shutdown
        /// The transport failed in a way not listed above (a system call or libcurl itself).
        case transport
    }

    /// What kind of failure this is.
    public let code: Code
    /// A human-readable explanation; never contains a token or key.
    public let message: String
    /// `true` when the server certainly did not act on the request (it was never sent, or the
    /// server refused the stream), so sending it again cannot duplicate it.
    public let neverProcessed: Bool

    /// Creates an error.
    public init(_ code: Code, _ message: String, neverProcessed: Bool = false) {
        self.code = code
        self.message = message
        self.neverProcessed = neverProcessed
    }

    /// Whether sending the same request again later can succeed (after a backoff): what the
    /// ``outcome`` says. `true` for timeouts, lost or failed connections and TLS handshakes;
    /// `false` for our own mistakes, credentials, cancellation and shutdown.
    public var isRetryable: Bool { outcome?.isRetryable ?? false }

    /// The core's name for this failure when it is one of the transport kind (no answer
    /// from the server); `nil` for our own refusals, cancellation and shutdown.
    public var transportFailure: APNsTransportFailure? {
        switch code {
        case .timeout: .timeout
        case .connectionFailed, .tlsFailure: .connectFailed
        case .connectionLost: neverProcessed ? .goAwayUnprocessed : .connectionReset
        case .invalidResponse: .streamReset
        case .transport: .connectionReset
        case .invalidRequest, .invalidConfiguration, .invalidCredentials, .cancelled, .shutdown: nil
        }
    }

    /// The classification hook: what the delivery logic should do, in the same terms as an
    /// answered request (`APNsResponse.outcome`). `nil` for cancellation and shutdown, which
    /// are the caller's own doing.
    public var outcome: APNsOutcomeClass? {
        switch code {
        case .invalidRequest: .requestMalformed
        case .invalidConfiguration: .configuration
        case .invalidCredentials: .credentialsBroken
        case .cancelled, .shutdown: nil
        default: transportFailure.map { APNsOutcomeClass.classify(transport: $0) }
        }
    }

    /// `APNs client error (<code>): <message>`.
    public var description: String { "APNs client error (\(code.rawValue)): \(message)" }
}
