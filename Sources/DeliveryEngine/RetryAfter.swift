import Foundation
import ScorecastCore

/// Reads an HTTP `Retry-After` header (RFC 9110 §10.2.3): delay seconds (`120`) or an
/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`). Whether APNs sends it is unconfirmed
/// (apns.md §8), so it is honoured when present and never required.
public enum RetryAfter {
    /// Seconds to wait from `now`, or `nil` when the header is not a valid value. A date in the
    /// past gives 0.
    public static func seconds(from header: String, now: Date) -> Double? {
        let trimmed = header.trimmingSpaces
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // A digit string too long for a finite Double still means "very long": the retry
            // policy caps it.
            guard let seconds = Double(trimmed), seconds.isFinite else { return .greatestFiniteMagnitude }
            return seconds
        }
        guard let date = imfFixdate(trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    static func imfFixdate(_ text: String) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","),
            weekdays.contains(String(parts[0].prefix(3))), parts[5] == "GMT",
            parts[1].count == 2, let day = Int(parts[1]),
            let monthIndex = months.firstIndex(of: parts[2]),
            parts[3].count == 4, let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2])
        else { return nil }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        guard (1000...9999).contains(year) else { return nil }
        return RFC3339.parse("\(year)-\(two(monthIndex + 1))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))Z")
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (Foundation-free).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
