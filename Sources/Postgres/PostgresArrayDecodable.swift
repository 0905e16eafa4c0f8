import Foundation

/// An element type whose Swift arrays can be read from Postgres array columns.
///
/// `UInt8` is the exception: `[UInt8]` reads a `bytea` column.
public protocol PostgresArrayDecodable: Sendable {
    /// Decodes an array cell (NULL throws; use `[T]?` for nullable columns).
    static func decodeArray(from cell: PostgresCell) throws(PostgresError) -> [Self]
}

extension PostgresArrayDecodable where Self: PostgresDecodable {
    /// Parses the array literal and decodes each element as the column's element type.
    public static func decodeArray(from cell: PostgresCell) throws(PostgresError) -> [Self] {
        let bytes = try cell.requireBytes(for: [Self].self)
        guard let elementType = cell.dataType.arrayElementType ?? (cell.dataType == .unknown ? .unknown : nil) else {
            throw cell.failure([Self].self, "not an array column")
        }
        let elements: [[UInt8]?]
        do {
            elements = try PostgresArrayLiteral.parse(bytes)
        } catch {
            throw cell.failure([Self].self, error.reason)
        }
        var values: [Self] = []
        values.reserveCapacity(elements.count)
        for element in elements {
            values.append(try Self.decode(from: PostgresCell(
                bytes: element.map { $0[...] }, dataType: elementType, columnName: cell.columnName)))
        }
        return values
    }
}

extension Array: PostgresDecodable where Element: PostgresArrayDecodable {
    /// The element type's array decoding (`bytea` for `[UInt8]`).
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> [Element] {
        try Element.decodeArray(from: cell)
    }
}

extension UInt8: PostgresArrayDecodable {
    /// A `bytea` column's bytes.
    public static func decodeArray(from cell: PostgresCell) throws(PostgresError) -> [UInt8] {
        try [UInt8].decodeBytea(cell)
    }
}

extension [UInt8] {
    /// Reads the `\x…` hex output of `bytea` (the default `bytea_output`).
    static func decodeBytea(_ cell: PostgresCell) throws(PostgresError) -> [UInt8] {
        let bytes = try cell.requireBytes(for: [UInt8].self)
        guard cell.dataType == .bytea || cell.dataType == .unknown else { throw cell.failure([UInt8].self) }
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\\"), bytes.dropFirst().first == UInt8(ascii: "x"),
              bytes.count % 2 == 0
        else { throw cell.failure([UInt8].self, "expected hex output (bytea_output = hex)") }
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count - 2) / 2)
        var index = bytes.startIndex + 2
        while index < bytes.endIndex {
            guard let high = hexValue(bytes[index]), let low = hexValue(bytes[index + 1]) else {
                throw cell.failure([UInt8].self, "invalid hex digit")
            }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension String: PostgresArrayDecodable {}
extension Int: PostgresArrayDecodable {}
extension Int64: PostgresArrayDecodable {}
extension Int32: PostgresArrayDecodable {}
extension Int16: PostgresArrayDecodable {}
extension Bool: PostgresArrayDecodable {}
extension Double: PostgresArrayDecodable {}
extension Date: PostgresArrayDecodable {}
extension PostgresJSON: PostgresArrayDecodable {}
extension Optional: PostgresArrayDecodable where Wrapped: PostgresArrayDecodable & PostgresDecodable {}
