/// Postgres's text form of one-dimensional arrays (`{1,2,NULL}`, `{"a b","c\"d"}`): pure
/// encoding and parsing, tested without a server.
enum PostgresArrayLiteral {
    private static let openBrace = UInt8(ascii: "{")
    private static let closeBrace = UInt8(ascii: "}")
    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")
    private static let comma = UInt8(ascii: ",")

    /// The literal for `elements` (each the element's text form, `nil` for NULL). Every element
    /// is double-quoted with `"` and `\` escaped, so no element text can change the structure.
    static func encode(_ elements: [[UInt8]?]) -> [UInt8] {
        var out: [UInt8] = [openBrace]
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(comma) }
            guard let element else {
                out.append(contentsOf: Array("NULL".utf8))
                continue
            }
            out.append(quote)
            for byte in element {
                if byte == quote || byte == backslash { out.append(backslash) }
                out.append(byte)
            }
            out.append(quote)
        }
        out.append(closeBrace)
        return out
    }

    /// Why a literal could not be read.
    struct ParseError: Error, Equatable {
        let reason: String
    }

    /// The elements of a one-dimensional literal (`nil` for NULL). Accepts the optional
    /// `[lower:upper]=` bounds prefix; rejects nested arrays.
    static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(ParseError) -> [[UInt8]?] {
        var input = Array(bytes)[...]
        if input.first == UInt8(ascii: "[") {
            guard let equals = input.firstIndex(of: UInt8(ascii: "=")) else {
                throw ParseError(reason: "array bounds without \"=\"")
            }
            input = input[(equals + 1)...]
        }
        guard input.first == openBrace, input.last == closeBrace else {
            throw ParseError(reason: "array literal must be enclosed in braces")
        }
        let body = input.dropFirst().dropLast()
        if body.isEmpty { return [] }
        var elements: [[UInt8]?] = []
        var index = body.startIndex
        while true {
            guard index < body.endIndex else { throw ParseError(reason: "missing array element") }
            if body[index] == openBrace { throw ParseError(reason: "multidimensional arrays are not supported") }
            var element: [UInt8] = []
            if body[index] == quote {
                index += 1
                var closed = false
                while index < body.endIndex {
                    let byte = body[index]
                    if byte == backslash {
                        index += 1
                        guard index < body.endIndex else { break }
                        element.append(body[index])
                    } else if byte == quote {
                        closed = true
                        index += 1
                        break
                    } else {
                        element.append(byte)
                    }
                    index += 1
                }
                guard closed else { throw ParseError(reason: "unterminated quoted array element") }
                elements.append(element)
            } else {
                var sawEscape = false
                while index < body.endIndex, body[index] != comma {
                    if body[index] == backslash {
                        index += 1
                        guard index < body.endIndex else { throw ParseError(reason: "dangling backslash") }
                        sawEscape = true
                    } else if body[index] == quote || body[index] == openBrace || body[index] == closeBrace {
                        throw ParseError(reason: "unexpected character in unquoted array element")
                    }
                    element.append(body[index])
                    index += 1
                }
                let isNull = !sawEscape && element.count == 4
                    && String(decoding: element, as: UTF8.self).uppercased() == "NULL"
                elements.append(isNull ? nil : element)
            }
            if index == body.endIndex { return elements }
            guard body[index] == comma else { throw ParseError(reason: "expected \",\" between array elements") }
            index += 1
        }
    }
}
