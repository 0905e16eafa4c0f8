#if canImport(Glibc)
import Glibc
#endif

/// Every response header APNs answers with that the client reads (apns.md §2, §3, §8):
/// request ids, the unique id of a development push, a created channel's id, and the wait a
/// 429 or 503 asks for. Named fields rather than a dictionary: the curl thread fills one per
/// answer in a single pass over the headers libcurl kept, and the caller reads them by name.
struct APNsResponseHeaders: Sendable, Equatable {
    /// The five header names.
    enum Field: CaseIterable {
        case requestID, apnsID, uniqueID, channelID, retryAfter

        /// The name on the wire.
        var name: String {
            switch self {
            case .requestID: "apns-request-id"
            case .apnsID: "apns-id"
            case .uniqueID: "apns-unique-id"
            case .channelID: "apns-channel-id"
            case .retryAfter: "retry-after"
            }
        }

        /// The field a header line's name (a C string, compared without case as header names
        /// are) stands for; `nil` for any other header.
        init?(cName: UnsafePointer<CChar>) {
            guard let field = Self.allCases.first(where: { strcasecmp(cName, $0.name) == 0 }) else { return nil }
            self = field
        }

        /// Where the field's value is kept.
        var value: WritableKeyPath<APNsResponseHeaders, String?> {
            switch self {
            case .requestID: \.requestID
            case .apnsID: \.apnsID
            case .uniqueID: \.uniqueID
            case .channelID: \.channelID
            case .retryAfter: \.retryAfter
            }
        }
    }

    /// `apns-request-id` (channel management and broadcasts).
    var requestID: String?
    /// `apns-id` (the device API's name for its request id).
    var apnsID: String?
    /// `apns-unique-id`.
    var uniqueID: String?
    /// `apns-channel-id`.
    var channelID: String?
    /// `retry-after`.
    var retryAfter: String?

    /// Keeps `value` for `field` unless an earlier header of that name gave one: the first
    /// counts, as it did when the headers were looked up by name.
    mutating func keepFirst(_ field: Field, _ value: @autoclosure () -> String) {
        if self[keyPath: field.value] == nil { self[keyPath: field.value] = value() }
    }
}
