import Foundation

/// RFC 3339 `date-time` parsing and formatting without `DateFormatter` (no locale, no time
/// zone database, no surprises): `2025-11-29T21:45:00Z`, `2025-11-29t21:45:00.250+01:00`.
public enum RFC3339 {
    /// Parses a `date-time` with a mandatory zone (`Z` or `±hh:mm`) and at most 9 fraction
    /// digits; `nil` for anything else, including impossible dates (`2025-02-30`).
    /// A leap second (`:60`) is read as the first instant of the next minute.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        var position = 0

        func number(_ digits: Int) -> Int? {
            guard position + digits <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let byte = bytes[position]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                position += 1
            }
            return value
        }
        func expect(_ accepted: Character...) -> Bool {
            guard position < bytes.count, accepted.contains(Character(Unicode.Scalar(bytes[position]))) else { return false }
            position += 1
            return true
        }

        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect("T", "t"), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysInMonth(year: year, month: month)).contains(day),
            hour <= 23, minute <= 59, second <= 60
        else { return nil }

        var fraction = 0.0
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            var digits = 0
            var scale = 0.1
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
                fraction += Double(bytes[position] - UInt8(ascii: "0")) * scale
                scale /= 10
                digits += 1
                position += 1
            }
            guard (1...9).contains(digits) else { return nil }
        }

        var offsetSeconds = 0
        if expect("Z", "z") {
            offsetSeconds = 0
        } else {
            guard position < bytes.count else { return nil }
            let sign: Int
            switch bytes[position] {
            case UInt8(ascii: "+"): sign = 1
            case UInt8(ascii: "-"): sign = -1
            default: return nil
            }
            position += 1
            guard let offsetHours = number(2), expect(":"), let offsetMinutes = number(2),
                offsetHours <= 23, offsetMinutes <= 59
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        }
        guard position == bytes.count else { return nil }

        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Formats `date` in UTC as `yyyy-mm-ddThh:mm:ssZ`, with a fraction of up to 3 digits only
    /// when `date` has one and `includeFraction` is set. Whole seconds by default because
    /// `ISO8601DateFormatter`'s default (and Foundation's ISO 8601 date decoding strategy) refuse
    /// fractions.
    public static func format(_ date: Date, includeFraction: Bool = false) -> String {
        // Whole milliseconds first, so 0.123 stored as 0.12299… still prints as .123.
        let totalMillis = Int((date.timeIntervalSince1970 * 1000).rounded())
        var whole = totalMillis / 1000
        var millis = totalMillis % 1000
        if millis < 0 {
            millis += 1000
            whole -= 1
        }
        if !includeFraction {
            whole = Int(date.timeIntervalSince1970.rounded(.down))
        }
        var days = whole / 86_400
        var secondsOfDay = whole % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civilDate(daysSince1970: days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(secondsOfDay / 3600, 2) + ":" + pad(secondsOfDay / 60 % 60, 2) + ":" + pad(secondsOfDay % 60, 2)
        if includeFraction, millis > 0 {
            text += "." + pad(millis, 3)
        }
        return text + "Z"
    }

    static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Howard Hinnant's days-from-civil, proleptic Gregorian.
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of ``daysSince1970(year:month:day:)``.
    static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
