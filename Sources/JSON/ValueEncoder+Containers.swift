/// Writes members into one object of a ``ValueEncoder``'s document.
struct KeyedValueContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder
    let object: ObjectBuilder
    let path: CodingPath

    var codingPath: [any CodingKey] { path.keys }

    private func set(_ value: JSONValue, for key: Key) {
        object.members[key.stringValue] = .value(value)
    }

    mutating func encodeNil(forKey key: Key) throws { set(.null, for: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), for: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), for: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        set(try ValueEncoder.number(value, at: path.appending(key)), for: key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        set(try ValueEncoder.number(value, at: path.appending(key)), for: key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.integer(value), for: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.number(value), for: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.number(value), for: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.number(value), for: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.number(value), for: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(.number(value), for: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.number(value), for: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.number(value), for: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.number(value), for: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(.number(value), for: key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(try encoder.nested(value, at: path.appending(key)), for: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBuilder()
        object.members[key.stringValue] = .object(nested)
        return KeyedEncodingContainer(KeyedValueContainer<NestedKey>(encoder: encoder, object: nested, path: path.appending(key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ArrayBuilder()
        object.members[key.stringValue] = .array(nested)
        return UnkeyedValueContainer(encoder: encoder, array: nested, path: path.appending(key))
    }

    mutating func superEncoder() -> any Encoder { superEncoder(under: PositionKey.superKey) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(under: key) }

    private func superEncoder(under key: any CodingKey) -> any Encoder {
        let child = ValueEncoder(dateValue: encoder.dateValue, path: path.appending(key))
        object.members[key.stringValue] = .encoder(child)
        return child
    }
}

/// Appends elements to one array of a ``ValueEncoder``'s document.
struct UnkeyedValueContainer: UnkeyedEncodingContainer {
    let encoder: ValueEncoder
    let array: ArrayBuilder
    let path: CodingPath

    var codingPath: [any CodingKey] { path.keys }
    var count: Int { array.elements.count }

    /// The path of the next element.
    private var nextPath: CodingPath { path.appending(PositionKey(intValue: count)) }

    private func append(_ value: JSONValue) {
        array.elements.append(.value(value))
    }

    mutating func encodeNil() throws { append(.null) }
    mutating func encode(_ value: Bool) throws { append(.bool(value)) }
    mutating func encode(_ value: String) throws { append(.string(value)) }
    mutating func encode(_ value: Double) throws { append(try ValueEncoder.number(value, at: nextPath)) }
    mutating func encode(_ value: Float) throws { append(try ValueEncoder.number(value, at: nextPath)) }
    mutating func encode(_ value: Int) throws { append(.integer(value)) }
    mutating func encode(_ value: Int8) throws { append(.number(value)) }
    mutating func encode(_ value: Int16) throws { append(.number(value)) }
    mutating func encode(_ value: Int32) throws { append(.number(value)) }
    mutating func encode(_ value: Int64) throws { append(.number(value)) }
    mutating func encode(_ value: UInt) throws { append(.number(value)) }
    mutating func encode(_ value: UInt8) throws { append(.number(value)) }
    mutating func encode(_ value: UInt16) throws { append(.number(value)) }
    mutating func encode(_ value: UInt32) throws { append(.number(value)) }
    mutating func encode(_ value: UInt64) throws { append(.number(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { append(try encoder.nested(value, at: nextPath)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBuilder()
        let nestedPath = nextPath
        array.elements.append(.object(nested))
        return KeyedEncodingContainer(KeyedValueContainer<NestedKey>(encoder: encoder, object: nested, path: nestedPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ArrayBuilder()
        let nestedPath = nextPath
        array.elements.append(.array(nested))
        return UnkeyedValueContainer(encoder: encoder, array: nested, path: nestedPath)
    }

    mutating func superEncoder() -> any Encoder {
        let child = ValueEncoder(dateValue: encoder.dateValue, path: nextPath)
        array.elements.append(.encoder(child))
        return child
    }
}

/// Writes a ``ValueEncoder``'s whole value; a second write replaces the first.
struct SingleValueContainer: SingleValueEncodingContainer {
    let encoder: ValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ value: JSONValue) {
        encoder.root = .value(value)
    }

    mutating func encodeNil() throws { set(.null) }
    mutating func encode(_ value: Bool) throws { set(.bool(value)) }
    mutating func encode(_ value: String) throws { set(.string(value)) }
    mutating func encode(_ value: Double) throws { set(try ValueEncoder.number(value, at: encoder.path)) }
    mutating func encode(_ value: Float) throws { set(try ValueEncoder.number(value, at: encoder.path)) }
    mutating func encode(_ value: Int) throws { set(.integer(value)) }
    mutating func encode(_ value: Int8) throws { set(.number(value)) }
    mutating func encode(_ value: Int16) throws { set(.number(value)) }
    mutating func encode(_ value: Int32) throws { set(.number(value)) }
    mutating func encode(_ value: Int64) throws { set(.number(value)) }
    mutating func encode(_ value: UInt) throws { set(.number(value)) }
    mutating func encode(_ value: UInt8) throws { set(.number(value)) }
    mutating func encode(_ value: UInt16) throws { set(.number(value)) }
    mutating func encode(_ value: UInt32) throws { set(.number(value)) }
    mutating func encode(_ value: UInt64) throws { set(.number(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { set(try encoder.nested(value, at: encoder.path)) }
}
