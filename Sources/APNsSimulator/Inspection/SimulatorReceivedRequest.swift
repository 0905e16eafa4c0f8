/// A request the simulator received and what it did with it.
public struct SimulatorReceivedRequest: Sendable, Equatable, Codable {
    /// 1 for the first request since start or reset.
    public let sequence: Int
    /// When it completed (UNIX seconds, from the simulator's clock).
    public let time: Double
    /// `send` or `management`.
    public let port: String
    /// The connection it came on (ids are per port).
    public let connection: UInt64
    /// The HTTP/2 stream id.
    public let stream: Int32
    /// The method.
    public let method: String
    /// The `:path`.
    public let path: String
    /// The request headers in order, `authorization` redacted.
    public let headers: [SimulatorHeader]
    /// The body as text (invalid UTF-8 replaced); bodies beyond 64 KiB are cut.
    public let body: String
    /// The body's full size in bytes.
    public let bodyBytes: Int
    /// `answered`, `reset` (RST_STREAM) or `ignored` (black hole).
    public let outcome: String
    /// The status answered, when answered.
    public let status: Int?
    /// The failure reason answered, if any.
    public let reason: String?
    /// The response headers sent.
    public let responseHeaders: [SimulatorHeader]
    /// Added latency before the answer, in milliseconds.
    public let delayMilliseconds: Int
    /// Observations on the Live Activity payload (e.g. a broadcast that tries to `start`);
    /// APNs accepts such payloads but devices ignore them.
    public let notes: [String]

    /// The first value of request header `name` (lower-case).
    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

    /// The first value of response header `name` (lower-case).
    public func responseHeader(_ name: String) -> String? { responseHeaders.first { $0.name == name }?.value }
}

extension SimulatorReceivedRequest {
    init(_ record: RequestRecord) {
        sequence = record.sequence
        time = record.time
        port = record.port.rawValue
        connection = record.connectionID
        stream = record.streamID
        method = record.method
        path = record.path
        headers = record.headers.map { SimulatorHeader(name: $0.name, value: $0.value) }
        body = String(decoding: record.body, as: UTF8.self)
        bodyBytes = record.bodyLength
        switch record.outcome {
        case .answered(let status, let reason):
            outcome = "answered"
            self.status = status
            self.reason = reason
        case .reset:
            outcome = "reset"
            status = nil
            reason = nil
        case .ignored:
            outcome = "ignored"
            status = nil
            reason = nil
        }
        responseHeaders = record.responseHeaders.map { SimulatorHeader(name: $0.name, value: $0.value) }
        delayMilliseconds = record.delayMilliseconds
        notes = PayloadNotes.notes(for: record)
    }
}
