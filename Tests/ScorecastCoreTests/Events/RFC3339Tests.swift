import Foundation
import Testing
@testable import ScorecastCore

@Suite struct RFC3339Tests {
    @Test(arguments: [
        ("1970-01-01T00:00:00Z", 0.0),
        ("2025-11-29T21:45:00Z", 1_764_452_700),
        ("2025-11-29t21:45:00z", 1_764_452_700),
        ("2025-11-29T22:45:00+01:00", 1_764_452_700),
        ("2025-11-29T16:15:00-05:30", 1_764_452_700),
        ("2025-11-29T21:45:00.250Z", 1_764_452_700.25),
        ("2024-02-29T00:00:00Z", 1_709_164_800),
        ("2016-12-31T23:59:60Z", 1_483_228_800),
        ("1969-12-31T23:59:59Z", -1),
        ("2000-03-01T00:00:00Z", 951_868_800),
    ])
    func parsesValidDateTimes(text: String, seconds: Double) throws {
        let date = try #require(RFC3339.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    @Test(arguments: [
        "2025-11-29T21:45:00", "2025-11-29 21:45:00Z", "2025-11-29", "2025-13-01T00:00:00Z",
        "2025-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2025-04-31T00:00:00Z", "2025-11-29T24:00:00Z",
        "2025-11-29T21:60:00Z", "2025-11-29T21:45:61Z", "2025-11-29T21:45:00.Z", "2025-11-29T21:45:00.1234567890Z",
        "2025-11-29T21:45:00+0100", "2025-11-29T21:45:00+24:00", "2025-11-29T21:45:00Zjunk", "+2025-11-29T21:45:00Z",
        "２０２５-11-29T21:45:00Z", "",
    ])
    func refusesInvalidDateTimes(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test(arguments: [
        (0.0, false, "1970-01-01T00:00:00Z"),
        (1_764_452_700.123, true, "2025-11-29T21:45:00.123Z"),
        (1_764_452_700.123, false, "2025-11-29T21:45:00Z"),
        (1_764_452_700, true, "2025-11-29T21:45:00Z"),
        (-1, false, "1969-12-31T23:59:59Z"),
        (951_868_799.9996, true, "2000-03-01T00:00:00Z"),
    ])
    func formatsInUTC(seconds: Double, fraction: Bool, expected: String) {
        #expect(RFC3339.format(Date(timeIntervalSince1970: seconds), includeFraction: fraction) == expected)
    }

    @Test func civilConversionRoundTripsOverCenturies() {
        for days in stride(from: -800_000, through: 800_000, by: 997) {
            let (year, month, day) = RFC3339.civilDate(daysSince1970: days)
            #expect(RFC3339.daysSince1970(year: year, month: month, day: day) == days)
        }
    }
}
