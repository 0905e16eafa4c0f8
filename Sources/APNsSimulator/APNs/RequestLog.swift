/// One received request and what the simulator did with it, as kept for inspection.
/// The `authorization` header is already redacted; the body is kept raw and decoded only when shown.
struct RequestRecord: Sendable {
    /// What happened to the request.
    enum Outcome: Sendable, Equatable {
        /// Answered with a status (and a reason when it failed).
        case answered(status: Int, reason: String?)
        /// Reset with RST_STREAM.
        case reset
        /// Never answered (black hole).
        case ignored
    }

    let sequence: Int
    let time: Double
    let port: APNsPort
    let connectionID: UInt64
    let streamID: Int32
    let method: String
    let path: String
    let headers: [(name: String, value: String)]
    let body: [UInt8]
    let bodyLength: Int
    let outcome: Outcome
    let responseHeaders: [(name: String, value: String)]
    let delayMilliseconds: Int
}

/// A bounded ring buffer of the latest requests, plus running totals per answer.
struct RequestLog: Sendable {
    private var records: [RequestRecord] = []
    private var next = 0
    private(set) var capacity: Int
    private(set) var totalReceived = 0
    /// Answers so far by `"<status>"` or `"<status> <reason>"`, plus `"reset"` and `"ignored"`.
    private(set) var answers: [String: Int] = [:]

    init(capacity: Int) {
        self.capacity = capacity
        records.reserveCapacity(min(capacity, 4096))
    }

    /// The sequence number the next record gets.
    var nextSequence: Int { totalReceived + 1 }

    /// Appends a record, dropping the oldest when full.
    mutating func append(_ record: RequestRecord) {
        totalReceived += 1
        switch record.outcome {
        case .answered(let status, let reason):
            answers[reason.map { "\(status) \($0)" } ?? String(status), default: 0] += 1
        case .reset: answers["reset", default: 0] += 1
        case .ignored: answers["ignored", default: 0] += 1
        }
        guard capacity > 0 else { return }
        if records.count < capacity {
            records.append(record)
        } else {
            records[next] = record
        }
        next = (next + 1) % capacity
    }

    /// The kept records, oldest first.
    var all: [RequestRecord] {
        guard records.count == capacity, capacity > 0 else { return records }
        return Array(records[next...] + records[..<next])
    }

    /// Forgets every record and total.
    mutating func removeAll() {
        records.removeAll(keepingCapacity: true)
        next = 0
        totalReceived = 0
        answers.removeAll()
    }
}
