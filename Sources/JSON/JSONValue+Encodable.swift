extension JSONValue: Encodable {
    /// Writes the value through any `Encoder`, so a parsed document can sit inside a Codable
    /// response (the simulator's admin API shows received payloads this way). There is no
    /// `Decodable` conformance on purpose: documents are read by ``JSONParser`` alone, which
    /// refuses what Foundation's decoder lets through (duplicate keys, lone surrogates).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .integer(let number): try container.encode(number)
        case .double(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        case .array(let elements): try container.encode(elements)
        case .object(let members): try container.encode(members)
        }
    }
}
