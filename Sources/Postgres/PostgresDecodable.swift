import Foundation

/// One value of a result row, in Postgres's text output format.
public struct PostgresCell: Sendable {
    /// The text bytes, or `nil` for NULL.
    public var bytes: ArraySlice<UInt8>?
    /// The column's type.
    public var dataType: PostgresDataType
    /// The column's name, for error messages.
    public var columnName: String

    /// Creates a cell.
    public init(bytes: ArraySlice<UInt8>?, dataType: PostgresDataType, columnName: String) {
        self.bytes = bytes
        self.dataType = dataType
        self.columnName = columnName
    }

    /// The bytes of a non-NULL value; a decoding error naming the column for NULL.
    public func requireBytes<T>(for type: T.Type) throws(PostgresError) -> ArraySlice<UInt8> {
        guard let bytes else {
            throw PostgresError(
                .decodingFailed, "value is NULL but \(T.self) is not optional; decode it as \(T.self)?",
                column: columnName)
        }
        return bytes
    }

    /// The value as text (for non-NULL values).
    func requireText<T>(for type: T.Type) throws(PostgresError) -> String {
        String(decoding: try requireBytes(for: type), as: UTF8.self)
    }

    /// A decoding error for this cell naming the column and both types, never the value.
    public func failure<T>(_ type: T.Type, _ reason: String = "") -> PostgresError {
        PostgresError(
            .decodingFailed, "cannot decode \(dataType) as \(T.self)" + (reason.isEmpty ? "" : ": " + reason),
            column: columnName)
    }
}

/// A Swift type that can be read from a result column.
public protocol PostgresDecodable: Sendable {
    /// Decodes a cell (which may be NULL; non-optional types throw for NULL).
    static func decode(from cell: PostgresCell) throws(PostgresError) -> Self
}

extension String: PostgresDecodable {
    /// Any column's text output (integers, timestamps, JSON… as Postgres prints them).
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> String {
        try cell.requireText(for: String.self)
    }
}

extension PostgresDecodable where Self: FixedWidthInteger & SignedInteger {
    /// Integer columns (`int2`, `int4`, `int8`, `oid`) and integral `numeric`s, range-checked.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Self {
        let bytes = try cell.requireBytes(for: Self.self)
        guard cell.dataType.isInteger || cell.dataType == .numeric || cell.dataType == .text || cell.dataType == .unknown else {
            throw cell.failure(Self.self)
        }
        guard let value = Int64(asciiDecimal: bytes) else {
            throw cell.failure(Self.self, "not an integer")
        }
        guard let narrowed = Self(exactly: value) else {
            throw cell.failure(Self.self, "out of range")
        }
        return narrowed
    }
}

extension Int: PostgresDecodable {}
extension Int64: PostgresDecodable {}
extension Int32: PostgresDecodable {}
extension Int16: PostgresDecodable {}

extension Bool: PostgresDecodable {
    /// `bool` columns.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Bool {
        let bytes = try cell.requireBytes(for: Bool.self)
        guard cell.dataType == .bool || cell.dataType == .text || cell.dataType == .unknown else {
            throw cell.failure(Bool.self)
        }
        switch String(decoding: bytes, as: UTF8.self) {
        case "t", "true": return true
        case "f", "false": return false
        default: throw cell.failure(Bool.self, "not t or f")
        }
    }
}

extension Double: PostgresDecodable {
    /// `float4`, `float8`, `numeric` (rounded to the nearest Double) and integer columns.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Double {
        let text = try cell.requireText(for: Double.self)
        guard [.float4, .float8, .numeric, .text, .unknown].contains(cell.dataType) || cell.dataType.isInteger else {
            throw cell.failure(Double.self)
        }
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default:
            guard let first = text.utf8.first, first == UInt8(ascii: "-") || first == UInt8(ascii: ".")
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
                  let value = Double(text)
            else { throw cell.failure(Double.self, "not a number") }
            return value
        }
    }
}

extension Date: PostgresDecodable {
    /// `timestamptz`, `timestamp` (read as UTC) and `date` (midnight UTC) columns. `infinity`
    /// and `-infinity` become `distantFuture` and `distantPast`.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Date {
        let text = try cell.requireText(for: Date.self)
        guard [.timestamptz, .timestamp, .date, .text, .unknown].contains(cell.dataType) else {
            throw cell.failure(Date.self)
        }
        guard let date = PostgresTimestamp.parse(text) else {
            throw cell.failure(Date.self, "not an ISO timestamp (is DateStyle ISO?)")
        }
        return date
    }
}

extension Data: PostgresDecodable {
    /// `bytea` columns.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Data {
        Data(try [UInt8].decodeBytea(cell))
    }
}

extension PostgresJSON: PostgresDecodable {
    /// `json` and `jsonb` columns (and text holding JSON).
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> PostgresJSON {
        let bytes = try cell.requireBytes(for: PostgresJSON.self)
        guard [.json, .jsonb, .text, .varchar, .unknown].contains(cell.dataType) else {
            throw cell.failure(PostgresJSON.self)
        }
        return PostgresJSON(bytes: Array(bytes))
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    /// `nil` for NULL, the wrapped type's decoding otherwise.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Wrapped? {
        guard cell.bytes != nil else { return nil }
        return try Wrapped.decode(from: cell)
    }
}

extension PostgresDecodable where Self: RawRepresentable, RawValue: PostgresDecodable {
    /// The raw value, then the type's `init(rawValue:)`.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Self {
        let raw = try RawValue.decode(from: cell)
        guard let value = Self(rawValue: raw) else {
            throw cell.failure(Self.self, "no case matches the stored value")
        }
        return value
    }
}

extension Int64 {
    /// Parses an optionally signed run of ASCII digits with overflow checks; `nil` otherwise.
    init?<Bytes: Collection<UInt8>>(asciiDecimal bytes: Bytes) {
        var iterator = bytes.makeIterator()
        guard var byte = iterator.next() else { return nil }
        let negative = byte == UInt8(ascii: "-")
        if negative || byte == UInt8(ascii: "+") {
            guard let next = iterator.next() else { return nil }
            byte = next
        }
        var value: Int64 = 0
        while true {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let digit = Int64(byte - UInt8(ascii: "0"))
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { return nil }
            value = next
            guard let following = iterator.next() else { break }
            byte = following
        }
        self = value
    }
}
