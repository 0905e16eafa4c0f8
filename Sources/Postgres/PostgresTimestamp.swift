import Foundation

/// Text forms of `timestamptz`, `timestamp` and `date` in the ISO date style, with integer
/// arithmetic on microseconds (Postgres's precision) so values round-trip exactly.
enum PostgresTimestamp {
    private static let microsPerSecond: Int64 = 1_000_000
    private static let microsPerDay: Int64 = 86_400 * 1_000_000
    /// Keeps the arithmetic inside Int64; the server enforces its own range (4713 BC–294276 AD).
    private static let maxMicros: Int64 = 9_000_000_000_000_000_000

    /// `2024-05-06 07:08:09.123456+00` (UTC, trailing zeros of the fraction kept), or `nil` when
    /// the date is not finite or is outside what `timestamptz` stores.
    static func format(_ date: Date) -> String? {
        let scaled = (date.timeIntervalSince1970 * 1_000_000).rounded()
        guard scaled.isFinite, abs(scaled) < Double(maxMicros) else { return nil }
        let micros = Int64(scaled)
        let days = floorDivide(micros, microsPerDay)
        let timeOfDay = micros - days * microsPerDay
        let (year, month, day) = civil(fromDays: days)
        let seconds = timeOfDay / microsPerSecond
        let fraction = timeOfDay % microsPerSecond
        let bc = year <= 0
        var text = pad(bc ? 1 - year : year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        text += " " + pad(seconds / 3600, 2) + ":" + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2)
        text += "." + pad(fraction, 6) + "+00"
        if bc { text += " BC" }
        return text
    }

    /// Parses the ISO output of `timestamptz` (`2024-05-06 07:08:09.12+02`, `… BC`), of
    /// `timestamp` (read as UTC) and of `date` (midnight UTC). `infinity` and `-infinity` become
    /// `Date.distantFuture` and `Date.distantPast`.
    static func parse(_ text: String) -> Date? {
        if text == "infinity" { return .distantFuture }
        if text == "-infinity" { return .distantPast }
        var scanner = ByteScanner(Array(text.utf8))
        guard var year = scanner.integer(minDigits: 4), scanner.skip("-"),
              let month = scanner.integer(exactDigits: 2), scanner.skip("-"),
              let day = scanner.integer(exactDigits: 2),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var micros: Int64 = 0
        var offsetSeconds: Int64 = 0
        if scanner.skip(" ") && !scanner.peek("B") {
            guard let hour = scanner.integer(exactDigits: 2), scanner.skip(":"),
                  let minute = scanner.integer(exactDigits: 2), scanner.skip(":"),
                  let second = scanner.integer(exactDigits: 2),
                  hour <= 24, minute < 60, second < 61
            else { return nil }
            micros = ((hour * 60 + minute) * 60 + second) * microsPerSecond
            if scanner.skip(".") {
                guard let (fraction, digits) = scanner.fraction(), digits <= 6 else { return nil }
                var scaled = fraction
                for _ in digits..<6 { scaled *= 10 }
                micros += scaled
            }
            if scanner.peek("+") || scanner.peek("-") {
                let negative = scanner.skip("-")
                if !negative { _ = scanner.skip("+") }
                guard let hours = scanner.integer(exactDigits: 2) else { return nil }
                var total = hours * 3600
                if scanner.skip(":") {
                    guard let minutes = scanner.integer(exactDigits: 2) else { return nil }
                    total += minutes * 60
                    if scanner.skip(":") {
                        guard let seconds = scanner.integer(exactDigits: 2) else { return nil }
                        total += seconds
                    }
                }
                offsetSeconds = negative ? -total : total
            }
            _ = scanner.skip(" ")
        }
        if scanner.skip("BC") { year = 1 - year }
        guard scanner.isAtEnd else { return nil }
        let days = days(fromCivil: year, month, day)
        let total = days * microsPerDay + micros - offsetSeconds * microsPerSecond
        return Date(timeIntervalSince1970: Double(total) / 1_000_000)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (year 0 = 1 BC).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// A cursor over ASCII bytes for the small parsers of this module.
struct ByteScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    func peek(_ text: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        guard bytes.count - index >= expected.count else { return false }
        return zip(bytes[index...], expected).allSatisfy { $0 == $1 }
    }

    mutating func skip(_ text: StaticString) -> Bool {
        guard peek(text) else { return false }
        index += text.utf8CodeUnitCount
        return true
    }

    /// Decimal digits (at least `minDigits`, at most 18), or `nil` without consuming anything.
    mutating func integer(minDigits: Int = 1, maxDigits: Int = 18) -> Int64? {
        var end = index
        var value: Int64 = 0
        while end < bytes.count, end - index < maxDigits, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) {
            value = value * 10 + Int64(bytes[end] - UInt8(ascii: "0"))
            end += 1
        }
        guard end - index >= minDigits else { return nil }
        index = end
        return value
    }

    mutating func integer(exactDigits: Int) -> Int64? { integer(minDigits: exactDigits, maxDigits: exactDigits) }

    /// Digits after a decimal point: the value and how many digits there were.
    mutating func fraction() -> (Int64, Int)? {
        let start = index
        guard let value = integer(minDigits: 1, maxDigits: 9) else { return nil }
        return (value, index - start)
    }
}
