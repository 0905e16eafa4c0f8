import HTTPServer
import ScorecastCore

/// What every app API request passes before its handler: the per-address rate limit, the
/// app's client key, then the per-device rate limit. Refusals are problems: `429` with
/// `Retry-After`, `401`.
package struct AppAPIGuard: Sendable {
    let authenticator: ClientAuthenticator
    let perDevice: RequestRateLimiter
    let perAddress: RequestRateLimiter

    /// Creates a guard from its parts.
    package init(authenticator: ClientAuthenticator, perDevice: RequestRateLimiter, perAddress: RequestRateLimiter) {
        self.authenticator = authenticator
        self.perDevice = perDevice
        self.perAddress = perAddress
    }

    /// Checks the address limit alone (public reads).
    package func checkAddress(_ request: HTTPRequest) throws {
        try Self.check(perAddress.take(request.remoteAddress ?? "unknown"), what: "this address")
    }

    /// Checks everything for a request of `bundleID`, about `installID` when given.
    package func check(_ request: HTTPRequest, bundleID: String, installID: String?) async throws {
        try checkAddress(request)
        try await authenticator.authenticate(request, bundleID: bundleID)
        if let installID {
            try Self.check(perDevice.take(bundleID + "/" + installID), what: "this device")
        }
    }

    private static func check(_ decision: TokenBucket.Decision, what: String) throws {
        guard case .limited(let retryAfter) = decision else { return }
        let seconds = retryAfter.isFinite ? max(1, Int(retryAfter.rounded(.up))) : 3_600
        throw Problem(status: .tooManyRequests, detail: "too many requests from \(what); retry after \(seconds) s",
                      headers: ["Retry-After": String(seconds)])
    }
}
