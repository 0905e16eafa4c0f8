import Testing
@testable import APNs

@Suite("resend policy")
struct ResendPolicyTests {
    private let policy = ResendPolicy(maxConnectionRetries: 2)
    private let now = ContinuousClock.now
    private var later: ContinuousClock.Instant { now + .seconds(5) }

    private func resend(_ error: APNsClientError, retrySafe: Bool = false, failures: Int = 1, cancelled: Bool = false,
                        deadline: ContinuousClock.Instant? = nil) -> Bool {
        policy.shouldResend(error, retrySafe: retrySafe, failures: failures, cancelled: cancelled, now: now, deadline: deadline ?? later)
    }

    @Test("never processed: resent whatever the request, within the deadline and the safety cap")
    func neverProcessed() {
        let refused = APNsClientError(.connectionLost, "x", neverProcessed: true)
        #expect(resend(refused))
        #expect(resend(refused, failures: 5))
        #expect(!resend(refused, failures: ResendPolicy.neverProcessedAttemptCap))
        #expect(!resend(refused, deadline: now))
        #expect(!resend(refused, cancelled: true))
    }

    @Test("maybe processed: resent only when retry-safe, at most maxConnectionRetries times")
    func maybeProcessed() {
        let lost = APNsClientError(.connectionLost, "x")
        #expect(!resend(lost, retrySafe: false))
        #expect(resend(lost, retrySafe: true, failures: 1))
        #expect(resend(lost, retrySafe: true, failures: 2))
        #expect(!resend(lost, retrySafe: true, failures: 3))
        #expect(!ResendPolicy(maxConnectionRetries: 0).shouldResend(lost, retrySafe: true, failures: 1, cancelled: false,
                                                                     now: now, deadline: later))
    }

    @Test("a connection that could not be opened is tried again up to maxConnectionRetries times")
    func connectionFailed() {
        let failed = APNsClientError(.connectionFailed, "x", neverProcessed: true)
        #expect(resend(failed, failures: 1))
        #expect(resend(failed, failures: 2))
        #expect(!resend(failed, failures: 3))
    }

    @Test("timeouts, TLS, unusable answers, cancellation and shutdown are final")
    func finalFailures() {
        for code in [APNsClientError.Code.timeout, .tlsFailure, .invalidResponse, .cancelled, .shutdown, .transport] {
            #expect(!resend(APNsClientError(code, "x", neverProcessed: true), retrySafe: true), "\(code)")
        }
    }
}
