import JSON

/// `GET /requests`.
struct AdminRequestList: Encodable {
    let total: Int
    let requests: [AdminRequest]
}

/// One received request as the admin API shows it: the payload decoded as JSON when it is JSON,
/// else the raw body text.
struct AdminRequest: Encodable {
    let sequence: Int
    let time: Double
    let port: String
    let connection: UInt64
    let stream: Int32
    let method: String
    let path: String
    let headers: [SimulatorHeader]
    let payload: JSONValue?
    let body: String?
    let bodyBytes: Int
    let outcome: String
    let status: Int?
    let reason: String?
    let responseHeaders: [SimulatorHeader]
    let delayMilliseconds: Int
    let notes: [String]

    init(_ request: SimulatorReceivedRequest) {
        sequence = request.sequence
        time = request.time
        port = request.port
        connection = request.connection
        stream = request.stream
        method = request.method
        path = request.path
        headers = request.headers
        let decoded = request.body.isEmpty ? nil : (try? JSONParser().parse(Array(request.body.utf8)))
        payload = decoded
        body = decoded == nil && !request.body.isEmpty ? request.body : nil
        bodyBytes = request.bodyBytes
        outcome = request.outcome
        status = request.status
        reason = request.reason
        responseHeaders = request.responseHeaders
        delayMilliseconds = request.delayMilliseconds
        notes = request.notes
    }

    private enum CodingKeys: String, CodingKey {
        case sequence, time, port, connection, stream, method, path, headers, payload, body, bodyBytes
        case outcome, status, reason, responseHeaders, delayMilliseconds, notes
    }

    func encode(to encoder: any Encoder) throws {
        // Explicit nulls (rather than missing keys) keep the shape stable for scripts.
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(time, forKey: .time)
        try container.encode(port, forKey: .port)
        try container.encode(connection, forKey: .connection)
        try container.encode(stream, forKey: .stream)
        try container.encode(method, forKey: .method)
        try container.encode(path, forKey: .path)
        try container.encode(headers, forKey: .headers)
        try container.encode(payload, forKey: .payload)
        try container.encode(body, forKey: .body)
        try container.encode(bodyBytes, forKey: .bodyBytes)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(status, forKey: .status)
        try container.encode(reason, forKey: .reason)
        try container.encode(responseHeaders, forKey: .responseHeaders)
        try container.encode(delayMilliseconds, forKey: .delayMilliseconds)
        try container.encode(notes, forKey: .notes)
    }
}

/// `GET /settings`.
struct AdminSettings: Encodable {
    let channelLimit: Int
    let budgetPerHour: Int?
    let noMessageStoredBudgetPerHour: Int?
    let retryAfter: String
    let allowsPriorityOneBroadcasts: Bool
    let maxConcurrentStreams: Int
}

/// `POST /budget`'s answer.
struct AdminBudgetSettings: Encodable {
    let perHour: Int?
    let noMessageStoredPerHour: Int?
    let retryAfter: String
}
