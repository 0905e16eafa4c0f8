/// A JSON value small enough to reason about and deterministic to encode.
///
/// Objects encode with their keys sorted by their UTF-8 bytes, so the same value always produces
/// the same bytes — payloads are reproducible byte for byte and can be compared in tests.
/// Integers and fractional numbers are kept apart: a literal without a fraction or exponent that
/// fits `Int` parses as ``integer(_:)``, anything else as ``double(_:)``, so sequence numbers and
/// scores never pass through floating point.
public enum JSONValue: Sendable, Hashable {
    /// `{…}`; keys are unique, encoded in sorted order.
    case object([String: JSONValue])
    /// `[…]`, in order.
    case array([JSONValue])
    /// A string.
    case string(String)
    /// A whole number written without fraction or exponent.
    case integer(Int)
    /// Any other number. Non-finite values cannot be encoded (``JSONEncodingError``).
    case double(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
}

extension JSONValue {
    /// The members when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The text when this is a string.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The number when this is an integer, or a double with an exact integer value.
    public var integerValue: Int? {
        switch self {
        case .integer(let number):
            return number
        case .double(let number):
            return Int(exactly: number)
        default:
            return nil
        }
    }

    /// The number as a `Double` when this is any number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let number): return Double(number)
        case .double(let number): return number
        default: return nil
        }
    }

    /// The flag when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The JSON type name used in error messages: `object`, `array`, `string`, `integer`,
    /// `number`, `boolean` or `null`.
    public var typeName: String {
        switch self {
        case .object: "object"
        case .array: "array"
        case .string: "string"
        case .integer: "integer"
        case .double: "number"
        case .bool: "boolean"
        case .null: "null"
        }
    }

    /// The member named `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Builds an object; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// Builds an array.
    public init(arrayLiteral elements: JSONValue...) {
        self = .array(elements)
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// Builds a string.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// Builds an integer.
    public init(integerLiteral value: Int) {
        self = .integer(value)
    }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// Builds a fractional number.
    public init(floatLiteral value: Double) {
        self = .double(value)
    }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// Builds a boolean.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// Builds `null`.
    public init(nilLiteral: ()) {
        self = .null
    }
}
