import APNsCore
/// How one send to APNs ended, as the APNs client reports it to the delivery logic.
public enum SendResult: Sendable, Hashable {
    /// An HTTP answer: its status, the `reason` of a failure body, and `Retry-After` in seconds
    /// when the server sent one.
    case response(status: Int, reason: APNsReason?, retryAfter: Double?)
    /// No HTTP answer (timeout, reset, GOAWAY…).
    case transportFailure(APNsTransportFailure)

    /// The apns.md §8 class of the result.
    public var outcomeClass: APNsOutcomeClass {
        switch self {
        case .response(let status, let reason, _):
            APNsOutcomeClass.classify(status: status, reason: reason)
        case .transportFailure(let failure):
            APNsOutcomeClass.classify(transport: failure)
        }
    }

    /// A short label for logs and the `deliveries` table: the APNs reason, else `HTTP <status>`,
    /// else the transport failure.
    public var label: String {
        switch self {
        case .response(let status, let reason?, _):
            "\(status) \(reason.rawValue)"
        case .response(let status, nil, _):
            "HTTP \(status)"
        case .transportFailure(let failure):
            failure.description
        }
    }
}
