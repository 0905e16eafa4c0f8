/// The answer the simulator gives to one APNs request, before it becomes HTTP/2 frames.
struct APNsAnswer {
    var status: Int
    /// The failure reason, `nil` on success.
    var reason: APNsReason?
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    /// A success with `headers` and an optional JSON body.
    static func success(status: Int, headers: [(name: String, value: String)], body: [UInt8] = []) -> APNsAnswer {
        var headers = headers
        if !body.isEmpty { headers.append(("content-type", "application/json")) }
        return APNsAnswer(status: status, reason: nil, headers: headers, body: body)
    }

    /// A failure: Apple's status for `reason`, a `{"reason":…}` body, the request id header
    /// (`apns-request-id` or `apns-id`), and `Retry-After` when given.
    static func failure(_ reason: APNsReason, id: (name: String, value: String), retryAfter: Int? = nil) -> APNsAnswer {
        var headers: [(name: String, value: String)] = [id, ("content-type", "application/json")]
        if let retryAfter { headers.append(("retry-after", String(retryAfter))) }
        return APNsAnswer(status: reason.status, reason: reason, headers: headers, body: reason.body)
    }

    /// `410 Unregistered` with the time (UNIX milliseconds) the token stopped being valid.
    static func unregistered(id: (name: String, value: String), timestampMilliseconds: Int) -> APNsAnswer {
        let body = Array("{\"reason\":\"\(APNsReason.unregistered.rawValue)\",\"timestamp\":\(timestampMilliseconds)}".utf8)
        return APNsAnswer(status: 410, reason: .unregistered, headers: [id, ("content-type", "application/json")], body: body)
    }

    /// The HTTP/2 response.
    var response: H2Response { H2Response(status: status, headers: headers, body: body) }
}
