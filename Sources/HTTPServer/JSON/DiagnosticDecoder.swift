import Foundation

/// Decodes a `JSONValue` tree to find out *where* and *why* a body does not fit a `Decodable`
/// type, with messages written for API clients.
///
/// `JSONDecoder` stays the decoder of record (fast, complete). Its errors are not always usable:
/// a fractional number for an `Int` field, for instance, comes back as "not valid JSON" with no
/// path, and a bad date loses its last key. So when `JSONDecoder` fails, this decoder replays the
/// document to name the field. It mirrors the conventions of `JSONCoding` (ISO 8601 dates,
/// base64 data) so that it agrees with `JSONDecoder` on what is valid.
struct DiagnosticDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Decodes `type` from `value`; throws a `DecodingError` whose coding path names the culprit.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try unbox(type, from: value, at: [])
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw Self.mismatch([String: Any].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw Self.mismatch([Any].self, value, codingPath) }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(value: value, codingPath: codingPath)
    }

    // MARK: - Values

    static func unbox<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: [any CodingKey]) throws -> T {
        if case .null = value, !(T.self is any OptionalMarker.Type) {
            throw DecodingError.valueNotFound(T.self, .init(codingPath: path, debugDescription: "must not be null; expected \(describe(T.self))"))
        }
        if let result = try primitive(T.self, from: value, at: path) as? T {
            return result
        }
        return try T(from: DiagnosticDecoder(value: value, codingPath: path))
    }

    /// Values `JSONDecoder` handles itself rather than through their `Decodable` conformance;
    /// `nil` for everything else.
    private static func primitive(_ type: Any.Type, from value: JSONValue, at path: [any CodingKey]) throws -> Any? {
        switch type {
        case is Bool.Type:
            guard case .bool(let flag) = value else { throw mismatch(type, value, path) }
            return flag
        case is String.Type:
            guard case .string(let text) = value else { throw mismatch(type, value, path) }
            return text
        case is Double.Type:
            return try number(value, path, type) { Double($0) }
        case is Float.Type:
            return try number(value, path, type) { Float($0) }
        case is Decimal.Type:
            return try number(value, path, type) { Decimal(string: $0) }
        case is Int.Type: return try integer(Int.self, value, path)
        case is Int8.Type: return try integer(Int8.self, value, path)
        case is Int16.Type: return try integer(Int16.self, value, path)
        case is Int32.Type: return try integer(Int32.self, value, path)
        case is Int64.Type: return try integer(Int64.self, value, path)
        case is UInt.Type: return try integer(UInt.self, value, path)
        case is UInt8.Type: return try integer(UInt8.self, value, path)
        case is UInt16.Type: return try integer(UInt16.self, value, path)
        case is UInt32.Type: return try integer(UInt32.self, value, path)
        case is UInt64.Type: return try integer(UInt64.self, value, path)
        case is Date.Type:
            guard case .string(let text) = value else { throw mismatch(type, value, path) }
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "expected an ISO 8601 date such as 2025-05-20T18:30:00Z, found '\(text.prefix(40))'"))
            }
            return date
        case is Data.Type:
            guard case .string(let text) = value else { throw mismatch(type, value, path) }
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "expected base64-encoded data"))
            }
            return data
        case is URL.Type:
            guard case .string(let text) = value else { throw mismatch(type, value, path) }
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "expected a URL"))
            }
            return url
        default:
            return nil
        }
    }

    private static func number<T>(_ value: JSONValue, _ path: [any CodingKey], _ type: Any.Type, _ convert: (String) -> T?) throws -> T {
        guard case .number(let text) = value else { throw mismatch(type, value, path) }
        guard let number = convert(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "the number \(text) cannot be represented as \(describe(type))"))
        }
        return number
    }

    private static func integer<T: FixedWidthInteger>(_ type: T.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> T {
        guard case .number(let text) = value else { throw mismatch(type, value, path) }
        if let exact = T(text) { return exact }
        if let double = Double(text), double.rounded() == double, let exact = T(exactly: double) { return exact }
        if let double = Double(text), double.rounded() != double {
            throw DecodingError.typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(describe(type)), found the fractional number \(text)"))
        }
        throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "expected \(describe(type)) between \(T.min) and \(T.max), found \(text)"))
    }

    static func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(describe(type)), found \(value.kindDescription)"))
    }

    /// `an integer`, `a string`… for messages; never a Swift type name for the common cases.
    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Bool.Type: "a boolean"
        case is String.Type: "a string"
        case is Double.Type, is Float.Type, is Decimal.Type: "a number"
        case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type: "an integer"
        case is UInt.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type, is UInt64.Type: "a non-negative integer"
        case is Date.Type: "an ISO 8601 date string"
        case is Data.Type: "a base64 string"
        case is URL.Type: "a URL string"
        case is [String: Any].Type: "an object"
        case is [Any].Type: "an array"
        default:
            if type is any Sequence.Type { "an array" } else { "a value of type \(type)" }
        }
    }

    // MARK: - Containers

    struct IndexKey: CodingKey {
        let intValue: Int?
        let stringValue: String
        init(_ index: Int) {
            intValue = index
            stringValue = "Index \(index)"
        }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.init(intValue) }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [String: JSONValue]
        let codingPath: [any CodingKey]

        var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

        private func member(_ key: Key) throws -> JSONValue {
            guard let value = members[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "is required"))
            }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            if case .null = try member(key) { return true }
            return false
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try DiagnosticDecoder.unbox(type, from: member(key), at: codingPath + [key])
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeGeneric(type, key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeGeneric(type, key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeGeneric(type, key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeGeneric(type, key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeGeneric(type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeGeneric(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeGeneric(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeGeneric(type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeGeneric(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeGeneric(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeGeneric(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeGeneric(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeGeneric(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeGeneric(type, key) }

        private func decodeGeneric<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
            try DiagnosticDecoder.unbox(type, from: member(key), at: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try DiagnosticDecoder(value: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try DiagnosticDecoder(value: member(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            DiagnosticDecoder(value: members["super"] ?? .null, codingPath: codingPath)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            DiagnosticDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
        }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let elements: [JSONValue]
        let codingPath: [any CodingKey]
        private(set) var currentIndex = 0

        init(elements: [JSONValue], codingPath: [any CodingKey]) {
            self.elements = elements
            self.codingPath = codingPath
        }

        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        private mutating func next(_ type: Any.Type) throws -> (JSONValue, [any CodingKey]) {
            let path = codingPath + [IndexKey(currentIndex)]
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "the array has too few elements"))
            }
            defer { currentIndex += 1 }
            return (elements[currentIndex], path)
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else { return false }
            if case .null = elements[currentIndex] {
                currentIndex += 1
                return true
            }
            return false
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, path) = try next(type)
            return try DiagnosticDecoder.unbox(type, from: value, at: path)
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeGeneric(type) }
        mutating func decode(_ type: String.Type) throws -> String { try decodeGeneric(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try decodeGeneric(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try decodeGeneric(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try decodeGeneric(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeGeneric(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeGeneric(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeGeneric(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeGeneric(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeGeneric(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeGeneric(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeGeneric(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeGeneric(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeGeneric(type) }

        private mutating func decodeGeneric<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, path) = try next(type)
            return try DiagnosticDecoder.unbox(type, from: value, at: path)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let (value, path) = try next([String: Any].self)
            return try DiagnosticDecoder(value: value, codingPath: path).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let (value, path) = try next([Any].self)
            return try DiagnosticDecoder(value: value, codingPath: path).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let (value, path) = try next(Any.self)
            return DiagnosticDecoder(value: value, codingPath: path)
        }
    }

    struct SingleValueContainer: SingleValueDecodingContainer {
        let value: JSONValue
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool {
            if case .null = value { return true }
            return false
        }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try DiagnosticDecoder.unbox(type, from: value, at: codingPath)
        }

        func decode(_ type: Bool.Type) throws -> Bool { try DiagnosticDecoder.unbox(type, from: value, at: codingPath) }
        func decode(_ type: String.Type) throws -> String { try DiagnosticDecoder.unbox(type, from: value, at: codingPath) }
        func decode(_ type: Double.Type) throws -> Double { try DiagnosticDecoder.unbox(type, from: value, at: codingPath) }
        func decode(_ type: Float.Type) throws -> Float { try DiagnosticDecoder.unbox(type, from: value, at: codingPath) }
        func decode(_ type: Int.Type) throws -> Int { try DiagnosticDecoder.unbox(type, from: value, at: codingPath) }
        func decode(_ type: Int8.Type) throws -> Int8 { try DiagnosticDecoder.unbox(type, from: value, at: codingPath) }
        func decode(_ type: Int16.Type) throws -> Int16 { try DiagnosticDecoder.unbox(type, from: value, at: codingPath) }
        func decode(_ type: Int32.Type) throws -> Int32 { try DiagnosticDecoder.unbox(type, from: value, at: codingPath) }
        func decode(_ type: Int64.Type) throws -> Int64 { try DiagnosticDecoder.unbox(type, from: value, at: codingPath) }
        func decode(_ type: UInt.Type) throws -> UInt { try DiagnosticDecoder.unbox(type, from: value, at: codingPath) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try DiagnosticDecoder.unbox(type, from: value, at: codingPath) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try DiagnosticDecoder.unbox(type, from: value, at: codingPath) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try DiagnosticDecoder.unbox(type, from: value, at: codingPath) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try DiagnosticDecoder.unbox(type, from: value, at: codingPath) }
    }
}

/// Lets `unbox` tell optionals (which accept `null`) from everything else.
protocol OptionalMarker {}
extension Optional: OptionalMarker {}
