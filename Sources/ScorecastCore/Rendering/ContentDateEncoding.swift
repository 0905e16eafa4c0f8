import Foundation
import JSON

/// How dates are written into `content-state`, per app (apns.md §4).
///
/// ActivityKit decodes `content-state` with a default Foundation JSON decoder, whose `Date` strategy reads
/// a number of seconds since 2001-01-01: so ``referenceDate`` is the default and works with a
/// plain `var updatedAt: Date`. Apps that declare other field types pick another encoding.
public enum ContentDateEncoding: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Seconds since 2001-01-01T00:00:00Z as a number (to the millisecond): decodes into `Date`
    /// with the default decoder.
    case referenceDate
    /// Whole seconds since 1970 as an integer: for apps that declare `Int` or `TimeInterval`.
    case unixSeconds
    /// `2025-11-29T21:45:00Z` as a string: for apps that declare `String`.
    case iso8601

    /// The JSON value of `date` in this encoding.
    public func jsonValue(for date: Date) -> JSONValue {
        switch self {
        case .referenceDate:
            // Millisecond precision: a fraction like 0.9 would otherwise print as 0.9000001. A
            // whole second is an integer, as the number's JSON text reads back.
            .number((date.timeIntervalSinceReferenceDate * 1000).rounded() / 1000)
        case .unixSeconds:
            .integer(Int(date.timeIntervalSince1970.rounded(.down)))
        case .iso8601:
            .string(RFC3339.format(date))
        }
    }

    /// `value` as JSON through its own `Codable` conformance, every date written in this
    /// encoding: exactly what the app's decoder reads. Throws `EncodingError.invalidValue` for a
    /// non-finite number.
    public func json<Value: Encodable>(_ value: Value) throws -> JSONValue {
        try JSONValueEncoder(dateValue: jsonValue(for:)).encode(value)
    }

    /// The text shown in logs and error messages.
    public var description: String { rawValue }
}
