import APNsCore

/// The one way every request goes out: signed with the team's shared token, sent, and the
/// token renewed once for the requests APNs calls it expired; a single request takes the same
/// steps as a batch of one.
extension APNsClient {
    typealias Outcome = Result<APNsResponse, APNsClientError>

    /// Sends one request, as ``performAll(_:credentials:operation:)`` sends a batch of one,
    /// without its arrays: every push-to-start and token-path update comes this way.
    func perform(_ request: APNsRequestBuilder.Unsigned, credentials: APNsCredentials,
                 operation: String) async throws(APNsClientError) -> APNsResponse {
        let deadline = ContinuousClock.now + configuration.requestTimeout
        let token = try tokens.token(for: credentials)
        var response = try await send(request, token: token, deadline: deadline)
        switch TokenVerdict(response) {
        case .usable:
            break
        case .invalid:
            tokens.invalidate(token)
        case .expired:
            noteExpired(token, operation: operation, requests: 1)
            response = try await send(request, token: try tokens.token(for: credentials), deadline: deadline)
        }
        log(response, operation: operation)
        return response
    }

    /// Signs and sends every request that was built (the others keep their error), then renews
    /// the token and sends once more just those answered `403 ExpiredProviderToken`. Outcomes
    /// come back in the order of `requests`; all share one deadline, `requestTimeout` from now.
    func performAll(_ requests: [Result<APNsRequestBuilder.Unsigned, APNsClientError>], credentials: APNsCredentials,
                    operation: String) async -> [Outcome] {
        let deadline = ContinuousClock.now + configuration.requestTimeout
        var outcomes = requests.map { request in request.map { _ in Self.unanswered } }
        let built = requests.indices.compactMap { index in (try? requests[index].get()).map { (index, $0) } }
        guard !built.isEmpty else { return outcomes }
        let token: ProviderToken
        do {
            token = try tokens.token(for: credentials)
        } catch {
            for (index, _) in built { outcomes[index] = .failure(error) }
            return outcomes
        }
        var expired: [(Int, APNsRequestBuilder.Unsigned)] = []
        var invalidToken = false
        for ((index, request), outcome) in zip(built, await send(built.map(\.1), token: token, deadline: deadline)) {
            outcomes[index] = outcome
            guard case .success(let response) = outcome else { continue }
            switch TokenVerdict(response) {
            case .usable: break
            case .invalid: invalidToken = true
            case .expired: expired.append((index, request))
            }
        }
        if invalidToken { tokens.invalidate(token) }
        if !expired.isEmpty {
            noteExpired(token, operation: operation, requests: expired.count)
            do {
                let renewed = try tokens.token(for: credentials)
                for ((index, _), outcome) in zip(expired, await send(expired.map(\.1), token: renewed, deadline: deadline)) {
                    outcomes[index] = outcome
                }
            } catch {
                for (index, _) in expired { outcomes[index] = .failure(error) }
            }
        }
        for case .success(let response) in outcomes { log(response, operation: operation) }
        return outcomes
    }

    /// A placeholder for a built request until its answer is in (every one is replaced).
    private static var unanswered: APNsResponse {
        APNsResponse(status: 0, reason: nil, requestID: nil, uniqueID: nil, channelID: nil, retryAfter: nil, timestamp: nil,
                     latency: .zero, body: [])
    }

    /// What an answer says of the provider token that signed it.
    private enum TokenVerdict {
        /// Nothing against it: keep using it.
        case usable
        /// `403 InvalidProviderToken`: not retried (the app is paused), but never reused either:
        /// the admin may replace the key file in place and resume, and the next request must be
        /// signed with it.
        case invalid
        /// `403 ExpiredProviderToken`: renewed, and the request sent once more.
        case expired

        init(_ response: APNsResponse) {
            guard response.status == 403 else {
                self = .usable
                return
            }
            switch response.reason {
            case .invalidProviderToken: self = .invalid
            case .expiredProviderToken: self = .expired
            default: self = .usable
            }
        }
    }

    /// APNs called `token` expired: it is dropped, so the retry signs with a fresh one.
    private func noteExpired(_ token: ProviderToken, operation: String, requests: Int) {
        logger.notice("APNs called the provider token expired; renewing it and retrying once", [
            "team": token.teamID, "key": token.keyID, "operation": operation, "requests": String(requests)])
        tokens.invalidate(token)
    }

    private func send(_ request: APNsRequestBuilder.Unsigned, token: ProviderToken,
                      deadline: ContinuousClock.Instant) async throws(APNsClientError) -> APNsResponse {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { throw Self.lateForResend }
        // A lone request awaits its own continuation: no batch to fill.
        return APNsResponse.parse(try await transport.perform(request.signed(authorization: token.authorization), timeout: remaining))
    }

    private func send(_ requests: [APNsRequestBuilder.Unsigned], token: ProviderToken,
                      deadline: ContinuousClock.Instant) async -> [Outcome] {
        if requests.count == 1 {
            do throws(APNsClientError) {
                return [.success(try await send(requests[0], token: token, deadline: deadline))]
            } catch {
                return [.failure(error)]
            }
        }
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return requests.map { _ in .failure(Self.lateForResend) } }
        let signed = requests.map { $0.signed(authorization: token.authorization) }
        return await transport.performAll(signed, timeout: remaining).map { $0.map(APNsResponse.parse) }
    }

    private static var lateForResend: APNsClientError {
        APNsClientError(.timeout, "the deadline passed before the request could be sent again", neverProcessed: true)
    }

    private func log(_ response: APNsResponse, operation: String) {
        if !response.isSuccess {
            logger.debug("APNs answered with a failure", [
                "operation": operation, "status": String(response.status),
                "reason": response.reason?.rawValue ?? "none", "request_id": response.requestID ?? "none"])
        } else if logger.isEnabled(.trace) {
            logger.trace("APNs accepted", [
                "operation": operation, "status": String(response.status), "request_id": response.requestID ?? "none",
                "unique_id": response.uniqueID ?? "none", "latency_ms": String(response.latency.components.seconds * 1000
                    + response.latency.components.attoseconds / 1_000_000_000_000_000)])
        }
    }
}
