extension JSONValue {
    /// Writes the value as compact JSON text (no spaces), object keys sorted by UTF-8 bytes,
    /// strings as raw UTF-8 with only `"`, `\` and control characters escaped. Fractional numbers
    /// with an integral value below 2^53 are written without a fraction (`75.0` → `75`).
    ///
    /// - Throws: ``JSONEncodingError/nonFiniteNumber(path:)`` for NaN or infinity.
    public func encoded() throws(JSONEncodingError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        guard JSONValue.write(self, into: &output) else {
            throw .nonFiniteNumber(path: JSONValue.pathOfNonFiniteNumber(in: self, at: "$") ?? "$")
        }
        return output
    }

    /// The compact JSON text of ``encoded()`` as a `String`.
    public func encodedString() throws(JSONEncodingError) -> String {
        String(decoding: try encoded(), as: UTF8.self)
    }

    /// Writes `value`; false at the first non-finite number. The path is not built here: an
    /// interpolated path per node was a fifth of the writer's time, and only a failure needs it.
    private static func write(_ value: JSONValue, into output: inout [UInt8]) -> Bool {
        switch value {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let flag):
            output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let number):
            output.append(contentsOf: String(number).utf8)
        case .double(let number):
            guard number.isFinite else { return false }
            if number == number.rounded(), abs(number) < 9_007_199_254_740_992, let whole = Int(exactly: number) {
                output.append(contentsOf: String(whole).utf8)
            } else {
                // Swift's description is the shortest text that round-trips, and always valid
                // JSON for finite values ("0.1", "1e-07", "1.5e+300").
                output.append(contentsOf: number.description.utf8)
            }
        case .string(let text):
            writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                guard write(element, into: &output) else { return false }
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in sortedMembers(members).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                guard write(member.value, into: &output) else { return false }
            }
            output.append(UInt8(ascii: "}"))
        }
        return true
    }

    /// The path of the first non-finite number ``write(_:into:)`` meets (same order: arrays in
    /// order, object keys sorted), or nil when there is none.
    private static func pathOfNonFiniteNumber(in value: JSONValue, at path: String) -> String? {
        switch value {
        case .double(let number):
            return number.isFinite ? nil : path
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let found = pathOfNonFiniteNumber(in: element, at: "\(path)[\(index)]") { return found }
            }
            return nil
        case .object(let members):
            for member in sortedMembers(members) {
                if let found = pathOfNonFiniteNumber(in: member.value, at: "\(path).\(member.key)") { return found }
            }
            return nil
        case .null, .bool, .integer, .string:
            return nil
        }
    }

    /// `text` as a JSON string literal, quotes included: the one escaper of the project, for the
    /// few places that write fixed-shape JSON by hand (log lines, problem bodies) and must keep
    /// their member order.
    public static func quoted(_ text: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + 2)
        writeString(text, into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Keys in UTF-8 byte order: independent of locale and of String's Unicode-aware comparison.
    public static func sortedKeys(_ members: [String: JSONValue]) -> [String] {
        members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The members in ``sortedKeys(_:)`` order, values with them: no second lookup per key.
    private static func sortedMembers(_ members: [String: JSONValue]) -> [(key: String, value: JSONValue)] {
        members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        // Runs of bytes that need no escape are copied whole: a byte-at-a-time append was most
        // of the writer's time.
        text.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices where bytes[index] < 0x20 || bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "\\") {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                appendEscape(of: bytes[index], into: &output)
                runStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(of byte: UInt8, into output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""):
            output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"):
            output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x0A:
            output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D:
            output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09:
            output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        default:
            output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0x0F)])
        }
    }
}
