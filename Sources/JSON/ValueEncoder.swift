import Foundation

/// The `Encoder` behind ``JSONValueEncoder``, one per value being encoded. A class because the
/// containers it hands out keep writing into it after the call that made them returns.
final class ValueEncoder: Encoder {
    let dateValue: (@Sendable (Date) -> JSONValue)?
    let path: CodingPath
    /// What has been encoded so far; `nil` while nothing has.
    var root: Slot?

    init(dateValue: (@Sendable (Date) -> JSONValue)?, path: CodingPath) {
        self.dateValue = dateValue
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// `value` encoded into this (fresh) encoder; `nil` when it encodes nothing.
    func value<Value: Encodable>(of value: Value) throws -> JSONValue? {
        if let dateValue, let date = value as? Date { return dateValue(date) }
        try value.encode(to: self)
        return root?.resolved
    }

    /// `value` encoded at `path` below this encoder: `{}` when it encodes nothing, as
    /// Foundation's JSON encoder writes it.
    func nested<Value: Encodable>(_ value: Value, at path: CodingPath) throws -> JSONValue {
        try ValueEncoder(dateValue: dateValue, path: path).value(of: value) ?? .object([:])
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // Asking twice gives the same object, as with Foundation's JSON encoder.
        let object: ObjectBuilder
        if case .object(let existing) = root {
            object = existing
        } else {
            object = ObjectBuilder()
            root = .object(object)
        }
        return KeyedEncodingContainer(KeyedValueContainer(encoder: self, object: object, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: ArrayBuilder
        if case .array(let existing) = root {
            array = existing
        } else {
            array = ArrayBuilder()
            root = .array(array)
        }
        return UnkeyedValueContainer(encoder: self, array: array, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(encoder: self)
    }

    /// `number`, or the error Foundation's JSON encoder throws for a NaN or an infinity.
    static func number(_ number: Double, at path: CodingPath) throws -> JSONValue {
        guard number.isFinite else {
            throw EncodingError.invalidValue(
                number, EncodingError.Context(codingPath: path.keys, debugDescription: "Unable to encode \(number) directly in JSON."))
        }
        return .number(number)
    }

    /// `number` as a `Float`'s JSON text reads back, or the error for a NaN or an infinity.
    static func number(_ number: Float, at path: CodingPath) throws -> JSONValue {
        guard number.isFinite else {
            throw EncodingError.invalidValue(
                number, EncodingError.Context(codingPath: path.keys, debugDescription: "Unable to encode \(number) directly in JSON."))
        }
        return .number(number)
    }
}

/// A member of a document under construction: a finished value, or a container or
/// super-encoder that may still be written to.
enum Slot {
    case value(JSONValue)
    case object(ObjectBuilder)
    case array(ArrayBuilder)
    case encoder(ValueEncoder)

    /// The finished value.
    var resolved: JSONValue {
        switch self {
        case .value(let value): value
        case .object(let object): .object(object.members.mapValues(\.resolved))
        case .array(let array): .array(array.elements.map(\.resolved))
        case .encoder(let encoder): encoder.root?.resolved ?? .object([:])
        }
    }
}

/// An object a keyed container writes into.
final class ObjectBuilder {
    var members: [String: Slot] = [:]
}

/// An array an unkeyed container appends to.
final class ArrayBuilder {
    var elements: [Slot] = []
}

/// Where a value sits, as a linked list: a nested value costs one node rather than a copy of an
/// array of keys, and the keys are only read for an error.
indirect enum CodingPath {
    case root
    case child(CodingPath, any CodingKey)

    /// The keys from the top.
    var keys: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while case .child(let parent, let key) = node {
            keys.append(key)
            node = parent
        }
        return keys.reversed()
    }

    /// This path and one more key.
    func appending(_ key: any CodingKey) -> CodingPath {
        .child(self, key)
    }
}

/// An array index or the `super` key.
struct PositionKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    /// The key `superEncoder()` writes under, as in Foundation's JSON encoder.
    static let superKey = PositionKey(stringValue: "super")
}
