/// The span a statistics request covers, written `15m`, `1h`, `24h` or `7d`: a positive whole
/// number followed by `m` (minutes), `h` (hours) or `d` (days), at most 7 days.
package struct StatsWindow: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The unit of a window.
    package enum Unit: String, Sendable, CaseIterable {
        /// Minutes (`m`).
        case minutes = "m"
        /// Hours (`h`).
        case hours = "h"
        /// Days (`d`).
        case days = "d"

        /// Seconds in one unit.
        package var seconds: Int {
            switch self {
            case .minutes: 60
            case .hours: 3_600
            case .days: 86_400
            }
        }
    }

    /// The longest window a request may ask for: 7 days.
    package static let maximumSeconds = 7 * 86_400

    /// The window used when a request names none: 15 minutes.
    package static let `default` = StatsWindow(checkedCount: 15, unit: .minutes)

    /// How many units.
    package let count: Int
    /// Which unit.
    package let unit: Unit

    /// The length in seconds.
    package var seconds: Int { count * unit.seconds }

    /// The length as a `Duration`.
    package var duration: Duration { .seconds(seconds) }

    /// The canonical text, e.g. `15m`.
    package var description: String { "\(count)\(unit.rawValue)" }

    /// Creates a window of `count` units; throws unless it is between 1 minute and 7 days.
    package init(count: Int, unit: Unit) throws(StatsWindowError) {
        guard count > 0, count <= Self.maximumSeconds / unit.seconds else {
            throw .outOfRange("\(count)\(unit.rawValue)")
        }
        self.init(checkedCount: count, unit: unit)
    }

    /// Parses `15m`, `1h`, `24h`, `7d`…; throws a `StatsWindowError` naming the text otherwise.
    package init(parsing text: String) throws(StatsWindowError) {
        guard let last = text.last, let unit = Unit(rawValue: String(last)) else { throw .malformed(text) }
        let digits = text.dropLast()
        guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let count = Int(digits)
        else { throw .malformed(text) }
        try self.init(count: count, unit: unit)
    }

    private init(checkedCount: Int, unit: Unit) {
        self.count = checkedCount
        self.unit = unit
    }

    /// Decodes from its text form, e.g. `"15m"`.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes as its text form, e.g. `"15m"`.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Why a `window` value was refused; the description is meant for a `400` problem response.
package enum StatsWindowError: Error, Equatable, CustomStringConvertible {
    /// Not a whole number followed by `m`, `h` or `d`.
    case malformed(String)
    /// Zero, or longer than 7 days.
    case outOfRange(String)

    /// The query parameter this error is about: `window`.
    package var field: String { "window" }

    /// A one-line explanation naming the bad value and what is accepted.
    package var description: String {
        switch self {
        case .malformed(let text):
            "window \"\(text)\" is not a duration: use a whole number followed by m, h or d (for example 15m, 1h, 24h), at most 7d"
        case .outOfRange(let text):
            "window \"\(text)\" is out of range: it must be at least 1m and at most 7d"
        }
    }
}
