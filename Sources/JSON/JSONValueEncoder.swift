import Foundation

/// An `Encoder` that builds a ``JSONValue`` directly: a `Codable` type becomes a value ready to
/// sit inside a larger document, without writing JSON text and parsing it back (that
/// round trip through Foundation's JSON encoder was an eighth of the server's rendering time).
///
/// The result equals what Foundation's JSON encoder followed by ``JSONParser`` gives, value for value:
/// - numbers as ``JSONValue/number(_:)`` makes them (`1.0` is ``JSONValue/integer(_:)``, as
///   Foundation's JSON encoder writes it `1`); a NaN or an infinity throws `EncodingError.invalidValue`;
/// - `nil` optionals are left out (`encodeIfPresent`), `encodeNil` writes `null`;
/// - a value that encodes nothing is `{}`; `superEncoder()` writes under the key `super`;
/// - a `Date` is written by ``dateValue`` when set (Foundation's custom date strategy), else
///   through its own conformance (seconds since 2001 as a number).
///
/// Unlike Foundation's JSON encoder it has no special case for `Data`, `URL` or `Decimal`: they encode
/// through their own conformances.
public struct JSONValueEncoder: Sendable {
    /// Writes each `Date`; `nil` lets dates encode themselves.
    public var dateValue: (@Sendable (Date) -> JSONValue)?

    /// Creates an encoder.
    public init(dateValue: (@Sendable (Date) -> JSONValue)? = nil) {
        self.dateValue = dateValue
    }

    /// `value` as JSON.
    ///
    /// - Throws: `EncodingError.invalidValue` for a non-finite number, or when `value` encodes
    ///   nothing at all; whatever `value`'s own `encode(to:)` throws.
    public func encode<Value: Encodable>(_ value: Value) throws -> JSONValue {
        guard let json = try ValueEncoder(dateValue: dateValue, path: .root).value(of: value) else {
            throw EncodingError.invalidValue(
                value, EncodingError.Context(codingPath: [], debugDescription: "Top-level \(Value.self) did not encode any values."))
        }
        return json
    }
}
