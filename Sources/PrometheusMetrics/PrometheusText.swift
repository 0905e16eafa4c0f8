/// Pieces of the Prometheus text exposition format, version 0.0.4.
enum PrometheusText {
    /// The content type a `/metrics` response carries.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Formats a sample value: integers without a fraction, `+Inf`, `-Inf`, `NaN`, otherwise
    /// Swift's shortest round-tripping form (e.g. `0.0025`, `1e-05`), which Go and Python parse.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value == .infinity { return "+Inf" }
        if value == -.infinity { return "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// Escapes a label value: backslash, double quote and line feed.
    static func escapeLabelValue(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// Escapes a HELP text: backslash and line feed.
    static func escapeHelp(_ help: String) -> String {
        var out = ""
        for character in help {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// Renders `{a="x",b="y"}` (or nothing when there are no labels).
    static func labelBlock(names: [String], values: [String]) -> String {
        // An empty value is the same as no label to Prometheus: leave it out.
        let pairs = zip(names, values).filter { !$0.1.isEmpty }.map { "\($0)=\"\(escapeLabelValue($1))\"" }
        guard !pairs.isEmpty else { return "" }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    /// Whether `name` is a valid metric name.
    static func isValidMetricName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !isDigit(first) else { return false }
        return name.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ":") }
    }

    /// Whether `name` is a valid label name that is not reserved (`__` prefix).
    static func isValidLabelName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !isDigit(first), !name.hasPrefix("__") else { return false }
        return name.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
