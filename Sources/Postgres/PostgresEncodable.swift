import Foundation

/// A value ready to be bound to a `$n` parameter: its declared type, its wire format and its
/// bytes (`nil` sends SQL NULL).
public struct PostgresBindValue: Sendable, Equatable {
    /// How the bytes are laid out.
    public enum Format: Sendable, Equatable {
        /// The type's text input form (sent NUL-terminated, so it may not contain NUL bytes).
        case text
        /// The type's binary form (used for `bytea`: the raw bytes).
        case binary
    }

    /// The type declared for the parameter.
    public var dataType: PostgresDataType
    /// Text or binary.
    public var format: Format
    /// The encoded value, or `nil` for NULL.
    public var bytes: [UInt8]?

    /// Creates a value from raw parts.
    public init(dataType: PostgresDataType, format: Format, bytes: [UInt8]?) {
        self.dataType = dataType
        self.format = format
        self.bytes = bytes
    }

    /// A value in the type's text input form; throws when the text contains a NUL byte, which
    /// neither the protocol's text format nor Postgres's `text` type can carry.
    public static func text(_ text: String, as dataType: PostgresDataType) throws(PostgresError) -> PostgresBindValue {
        let bytes = Array(text.utf8)
        if bytes.contains(0) {
            throw PostgresError(.encodingFailed, "a \(dataType) value contains a NUL byte, which Postgres cannot store")
        }
        return PostgresBindValue(dataType: dataType, format: .text, bytes: bytes)
    }

    /// SQL NULL declared as `dataType`.
    public static func null(_ dataType: PostgresDataType) -> PostgresBindValue {
        PostgresBindValue(dataType: dataType, format: .text, bytes: nil)
    }
}

/// A Swift value that can be bound to a statement parameter.
///
/// Conform your own types by returning a `PostgresBindValue` (usually `.text(…, as:)`).
/// `RawRepresentable` types whose raw value is encodable get a conformance for free.
public protocol PostgresEncodable: Sendable {
    /// The type declared for the parameter; also used for NULLs of this Swift type.
    static var postgresDataType: PostgresDataType { get }
    /// The encoded value.
    func postgresBindValue() throws(PostgresError) -> PostgresBindValue
}

extension String: PostgresEncodable {
    /// `text`
    public static var postgresDataType: PostgresDataType { .text }
    public func postgresBindValue() throws(PostgresError) -> PostgresBindValue { try .text(self, as: .text) }
}

extension Substring: PostgresEncodable {
    /// `text`
    public static var postgresDataType: PostgresDataType { .text }
    public func postgresBindValue() throws(PostgresError) -> PostgresBindValue { try .text(String(self), as: .text) }
}

extension Int: PostgresEncodable {
    /// `int8`
    public static var postgresDataType: PostgresDataType { .int8 }
    public func postgresBindValue() throws(PostgresError) -> PostgresBindValue {
        PostgresBindValue(dataType: .int8, format: .text, bytes: Array(String(self).utf8))
    }
}

extension Int64: PostgresEncodable {
    /// `int8`
    public static var postgresDataType: PostgresDataType { .int8 }
    public func postgresBindValue() throws(PostgresError) -> PostgresBindValue {
        PostgresBindValue(dataType: .int8, format: .text, bytes: Array(String(self).utf8))
    }
}

extension Int32: PostgresEncodable {
    /// `int4`
    public static var postgresDataType: PostgresDataType { .int4 }
    public func postgresBindValue() throws(PostgresError) -> PostgresBindValue {
        PostgresBindValue(dataType: .int4, format: .text, bytes: Array(String(self).utf8))
    }
}

extension Int16: PostgresEncodable {
    /// `int2`
    public static var postgresDataType: PostgresDataType { .int2 }
    public func postgresBindValue() throws(PostgresError) -> PostgresBindValue {
        PostgresBindValue(dataType: .int2, format: .text, bytes: Array(String(self).utf8))
    }
}

extension Bool: PostgresEncodable {
    /// `bool`
    public static var postgresDataType: PostgresDataType { .bool }
    public func postgresBindValue() throws(PostgresError) -> PostgresBindValue {
        PostgresBindValue(dataType: .bool, format: .text, bytes: [self ? UInt8(ascii: "t") : UInt8(ascii: "f")])
    }
}

extension Double: PostgresEncodable {
    /// `float8`
    public static var postgresDataType: PostgresDataType { .float8 }
    public func postgresBindValue() throws(PostgresError) -> PostgresBindValue {
        PostgresBindValue(dataType: .float8, format: .text, bytes: Array(postgresText.utf8))
    }

    /// The shortest text that reads back as exactly this value, in Postgres's spelling of the
    /// special values.
    var postgresText: String {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return description
    }
}

extension Date: PostgresEncodable {
    /// `timestamptz`, sent in UTC with microseconds (Postgres's precision).
    public static var postgresDataType: PostgresDataType { .timestamptz }
    public func postgresBindValue() throws(PostgresError) -> PostgresBindValue {
        guard let text = PostgresTimestamp.format(self) else {
            throw PostgresError(.encodingFailed, "a Date is outside the range timestamptz can store")
        }
        return PostgresBindValue(dataType: .timestamptz, format: .text, bytes: Array(text.utf8))
    }
}

extension Data: PostgresEncodable {
    /// `bytea`, sent in binary form (any bytes, including zeros).
    public static var postgresDataType: PostgresDataType { .bytea }
    public func postgresBindValue() throws(PostgresError) -> PostgresBindValue {
        PostgresBindValue(dataType: .bytea, format: .binary, bytes: Array(self))
    }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    /// The wrapped type's; `nil` is sent as a NULL of that type.
    public static var postgresDataType: PostgresDataType { Wrapped.postgresDataType }
    public func postgresBindValue() throws(PostgresError) -> PostgresBindValue {
        switch self {
        case .none: return .null(Wrapped.postgresDataType)
        case .some(let value): return try value.postgresBindValue()
        }
    }
}

extension PostgresEncodable where Self: RawRepresentable, RawValue: PostgresEncodable {
    /// The raw value's type.
    public static var postgresDataType: PostgresDataType { RawValue.postgresDataType }
    /// The raw value, encoded.
    public func postgresBindValue() throws(PostgresError) -> PostgresBindValue { try rawValue.postgresBindValue() }
}
