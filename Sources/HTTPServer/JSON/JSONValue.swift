/// A parsed JSON document, kept only to explain why a body failed to decode (see
/// `DiagnosticDecoder`). Numbers keep their text so range and exactness can be judged per
/// target type.
enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// `a string`, `an array`… for messages.
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number(let text): "the number \(text)"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
