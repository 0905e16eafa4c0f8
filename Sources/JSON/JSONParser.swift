/// A strict RFC 8259 parser for untrusted input.
///
/// Stricter than Foundation's JSON serialization where it matters for a public API: duplicate object keys,
/// invalid UTF-8, lone surrogates, control characters in strings, trailing content and nesting
/// deeper than ``maximumDepth`` are all refused with the byte offset. Integers stay integers
/// (see ``JSONValue``). Keys are Swift `String`s, so two keys that are canonically equivalent
/// Unicode (`é` precomposed and decomposed) count as duplicates.
public struct JSONParser: Sendable {
    /// The deepest nesting of arrays and objects accepted.
    public var maximumDepth: Int

    /// Creates a parser; `maximumDepth` bounds recursion on hostile input.
    public init(maximumDepth: Int = 64) {
        self.maximumDepth = maximumDepth
    }

    /// Parses one JSON text (surrounding whitespace allowed, nothing else).
    public func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        var cursor = Cursor(bytes: Array(bytes), maximumDepth: maximumDepth)
        cursor.skipWhitespace()
        let value = try cursor.parseValue(depth: 0)
        cursor.skipWhitespace()
        guard cursor.atEnd else { throw cursor.error("unexpected content after the JSON value") }
        return value
    }

    /// Parses a JSON text held in a string.
    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

private struct Cursor {
    let bytes: [UInt8]
    let maximumDepth: Int
    var position = 0

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    var atEnd: Bool { position >= bytes.count }

    func error(_ message: String, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(offset: offset ?? position, message: message)
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["):
            return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        default:
            throw error("unexpected character, expected a value")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let start = position
        for byte in UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
            guard position < bytes.count, bytes[position] == byte else {
                throw error("invalid literal, expected \(literal)", at: start)
            }
            position += 1
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw error("expected a string key in object")
            }
            let keyOffset = position
            let key = try parseString()
            guard members[key] == nil else { throw error("duplicate object key \"\(key.prefix(64))\"", at: keyOffset) }
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw error("expected ':' after object key")
            }
            position += 1
            skipWhitespace()
            members[key] = try parseValue(depth: depth)
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input inside an object") }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(members)
            default:
                throw error("expected ',' or '}' in object")
            }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input inside an array") }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default:
                throw error("expected ',' or ']' in array")
            }
        }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        let start = position
        position += 1
        // Most strings have no escape: find the closing quote and make the String from the
        // bytes in place, without a byte-at-a-time copy.
        var end = position
        while end < bytes.count, bytes[end] >= 0x20, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\") {
            end += 1
        }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            guard let text = bytes.withUnsafeBufferPointer({ Self.validUTF8(UnsafeBufferPointer(rebasing: $0[position..<end])) }) else {
                throw error("string is not valid UTF-8", at: start)
            }
            position = end + 1
            return text
        }
        var buffer = Array(bytes[position..<end])
        position = end
        while true {
            guard position < bytes.count else { throw error("unterminated string", at: start) }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let text = buffer.withUnsafeBufferPointer(Self.validUTF8) else {
                    throw error("string is not valid UTF-8", at: start)
                }
                return text
            case UInt8(ascii: "\\"):
                position += 1
                try parseEscape(into: &buffer)
            case 0x00..<0x20:
                throw error("unescaped control character in string")
            default:
                buffer.append(byte)
                position += 1
            }
        }
    }

    /// `bytes` as a String when they are valid UTF-8. `String(validating:as:)` looks up generic
    /// metadata on every call (a fifth of the parser's time); decoding replaces invalid bytes,
    /// so valid input is exactly what decodes back to the same bytes.
    static func validUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONParseError) {
        guard position < bytes.count else { throw error("unterminated escape sequence") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            let escapeStart = position - 2
            let first = try parseHex4()
            var scalarValue = UInt32(first)
            if (0xD800..<0xDC00).contains(first) {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("high surrogate escape without a following low surrogate", at: escapeStart)
                }
                position += 2
                let second = try parseHex4()
                guard (0xDC00..<0xE000).contains(second) else {
                    throw error("high surrogate escape followed by a non-low surrogate", at: escapeStart)
                }
                scalarValue = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
            } else if (0xDC00..<0xE000).contains(first) {
                throw error("lone low surrogate escape", at: escapeStart)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else {
                throw error("invalid unicode escape", at: escapeStart)
            }
            buffer.append(contentsOf: String(Character(scalar)).utf8)
        default:
            throw error("invalid escape sequence", at: position - 2)
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        guard position + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        var isInteger = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw error("invalid number", at: start) }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) { throw error("leading zeros are not allowed in numbers", at: start) }
        } else {
            skipDigits()
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected digits after decimal point", at: start) }
            skipDigits()
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected digits in exponent", at: start) }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger, let whole = Int(text) {
            return .integer(whole)
        }
        guard let number = Double(text), number.isFinite else { throw error("number out of range", at: start) }
        return .double(number)
    }

    func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    mutating func skipDigits() {
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }
}
