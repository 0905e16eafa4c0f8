import Foundation

/// The project's one way to turn `Codable` values into JSON text and back: every response, file,
/// request body and token the modules write or read as a `Codable` type goes through here.
///
/// Text is written in one configuration: keys sorted, slashes unescaped, `Date`s as
/// ISO 8601 in UTC (`2026-11-29T20:00:00Z`) unless a stored format asks for Foundation's
/// default. Values that only need a tree (``JSONValue``) use ``JSONParser`` and
/// ``JSONValueEncoder`` instead.
///
/// Why Foundation underneath: `JSONEncoder` and `JSONDecoder` implement `Codable`'s keyed and
/// unkeyed containers, which this module would otherwise duplicate; this file is the only one
/// that names them (Package.swift says so), so their configuration lives in one place.
public enum JSONCoding {
    /// How a `Date` is written and read.
    public enum Dates: Sendable {
        /// ISO 8601 text in UTC, whole seconds: what every response and the CLI's `--json` use.
        case iso8601
        /// Foundation's default: a number of seconds since 2001-01-01 (what `Date`'s own
        /// `Codable` conformance gives). Only for formats stored before this type existed.
        case foundationDefault
    }

    /// `value` as JSON text: sorted keys, unescaped slashes, `dates` as given, pretty printed
    /// (two spaces) when asked.
    public static func encode(_ value: some Encodable, dates: Dates = .iso8601, pretty: Bool = false) throws -> [UInt8] {
        // A fresh encoder per call: encoders carry mutable configuration and are not Sendable.
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        if case .iso8601 = dates { encoder.dateEncodingStrategy = .iso8601 }
        return Array(try encoder.encode(value))
    }

    /// Reads `bytes` as a `type`, `dates` as given.
    ///
    /// - Throws: `DecodingError` naming the path at fault.
    public static func decode<Value: Decodable>(
        _ type: Value.Type, from bytes: some Collection<UInt8>, dates: Dates = .iso8601
    ) throws -> Value {
        let decoder = JSONDecoder()
        if case .iso8601 = dates { decoder.dateDecodingStrategy = .iso8601 }
        return try decoder.decode(type, from: Data(bytes))
    }
}
