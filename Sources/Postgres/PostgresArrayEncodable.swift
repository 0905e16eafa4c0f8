import Foundation

/// An element type whose Swift arrays bind as Postgres arrays (`[String]` as `text[]`…), so
/// that callers can send many rows in one statement with `unnest($1::text[], $2::int8[])`.
///
/// `UInt8` is the exception: `[UInt8]` binds as `bytea`.
public protocol PostgresArrayEncodable: Sendable {
    /// The array type, e.g. `text[]` for `String`.
    static var postgresArrayDataType: PostgresDataType { get }
    /// The encoded array.
    static func postgresArrayBindValue(_ elements: [Self]) throws(PostgresError) -> PostgresBindValue
}

extension PostgresArrayEncodable where Self: PostgresEncodable {
    /// An array literal (`{"a","b",NULL}`) made from each element's text form; every element is
    /// quoted and escaped, so commas, quotes, braces, backslashes and the word NULL stay data.
    public static func postgresArrayBindValue(_ elements: [Self]) throws(PostgresError) -> PostgresBindValue {
        var texts: [[UInt8]?] = []
        texts.reserveCapacity(elements.count)
        for element in elements {
            let value = try element.postgresBindValue()
            guard value.format == .text else {
                throw PostgresError(.encodingFailed, "\(Self.postgresDataType) values cannot be array elements")
            }
            texts.append(value.bytes)
        }
        return PostgresBindValue(
            dataType: postgresArrayDataType, format: .text, bytes: PostgresArrayLiteral.encode(texts))
    }
}

extension Array: PostgresEncodable where Element: PostgresArrayEncodable {
    /// The element's array type (`bytea` for `[UInt8]`).
    public static var postgresDataType: PostgresDataType { Element.postgresArrayDataType }
    public func postgresBindValue() throws(PostgresError) -> PostgresBindValue {
        try Element.postgresArrayBindValue(self)
    }
}

extension UInt8: PostgresArrayEncodable {
    /// `bytea`: a byte array is binary data, not an array of numbers.
    public static var postgresArrayDataType: PostgresDataType { .bytea }
    /// The bytes in binary form (zeros included).
    public static func postgresArrayBindValue(_ elements: [UInt8]) throws(PostgresError) -> PostgresBindValue {
        PostgresBindValue(dataType: .bytea, format: .binary, bytes: elements)
    }
}

extension String: PostgresArrayEncodable {
    /// `text[]`
    public static var postgresArrayDataType: PostgresDataType { .textArray }
}

extension Int: PostgresArrayEncodable {
    /// `int8[]`
    public static var postgresArrayDataType: PostgresDataType { .int8Array }
}

extension Int64: PostgresArrayEncodable {
    /// `int8[]`
    public static var postgresArrayDataType: PostgresDataType { .int8Array }
}

extension Int32: PostgresArrayEncodable {
    /// `int4[]`
    public static var postgresArrayDataType: PostgresDataType { .int4Array }
}

extension Int16: PostgresArrayEncodable {
    /// `int2[]`
    public static var postgresArrayDataType: PostgresDataType { .int2Array }
}

extension Bool: PostgresArrayEncodable {
    /// `bool[]`
    public static var postgresArrayDataType: PostgresDataType { .boolArray }
}

extension Double: PostgresArrayEncodable {
    /// `float8[]`
    public static var postgresArrayDataType: PostgresDataType { .float8Array }
}

extension Date: PostgresArrayEncodable {
    /// `timestamptz[]`
    public static var postgresArrayDataType: PostgresDataType { .timestamptzArray }
}

extension PostgresJSON: PostgresArrayEncodable {
    /// `jsonb[]`
    public static var postgresArrayDataType: PostgresDataType { .jsonbArray }
}

extension Optional: PostgresArrayEncodable where Wrapped: PostgresArrayEncodable & PostgresEncodable {
    /// The wrapped type's array type; `nil` elements become NULL elements.
    public static var postgresArrayDataType: PostgresDataType { Wrapped.postgresArrayDataType }
}
