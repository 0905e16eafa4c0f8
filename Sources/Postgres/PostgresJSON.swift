import Foundation
import JSON

/// A JSON document, bound as `jsonb` and decoded from `json` or `jsonb` columns.
///
/// Holds the raw JSON bytes: build it from bytes you already have, or from any `Encodable`;
/// read it back as bytes or decode it into any `Decodable`.
public struct PostgresJSON: Sendable, Equatable, Hashable {
    /// The JSON text, UTF-8.
    public var bytes: [UInt8]

    /// Wraps raw JSON bytes (the server validates them when they are bound).
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Wraps a JSON string.
    public init(_ text: String) { self.bytes = Array(text.utf8) }

    /// Encodes `value` the project's one way (``JSONCoding``; a `Date` as Foundation's default
    /// number, as documents were always stored).
    public init<T: Encodable>(encoding value: T) throws(PostgresError) {
        do {
            self.bytes = try JSONCoding.encode(value, dates: .foundationDefault)
        } catch {
            throw PostgresError(.encodingFailed, "could not encode \(T.self) as JSON: \(error)")
        }
    }

    /// The JSON text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Decodes the document into `type` the project's one way (``JSONCoding``, dates as stored).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws(PostgresError) -> T {
        do {
            return try JSONCoding.decode(T.self, from: bytes, dates: .foundationDefault)
        } catch {
            throw PostgresError(.decodingFailed, "could not decode JSON as \(T.self): \(Self.describe(error))")
        }
    }

    /// Names the failing path without echoing document contents.
    private static func describe(_ error: Error) -> String {
        guard let error = error as? DecodingError else { return "invalid JSON" }
        switch error {
        case .typeMismatch(let type, let context): return "expected \(type) at \(path(context))"
        case .valueNotFound(let type, let context): return "missing \(type) at \(path(context))"
        case .keyNotFound(let key, let context): return "missing key \"\(key.stringValue)\" at \(path(context))"
        case .dataCorrupted(let context): return "invalid data at \(path(context))"
        @unknown default: return "invalid JSON"
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return path.isEmpty ? "the top level" : "$" + path
    }
}

extension PostgresJSON: PostgresEncodable {
    /// `jsonb`
    public static var postgresDataType: PostgresDataType { .jsonb }
    /// The JSON text; a NUL byte is an encoding error.
    public func postgresBindValue() throws(PostgresError) -> PostgresBindValue {
        if bytes.contains(0) {
            throw PostgresError(.encodingFailed, "a JSON document contains a NUL byte")
        }
        return PostgresBindValue(dataType: .jsonb, format: .text, bytes: bytes)
    }
}
