import Foundation
@testable import Postgres
import Testing

@Suite struct PostgresTimestampTests {
    @Test func formatsUTCWithMicroseconds() {
        #expect(PostgresTimestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00.000000+00")
        #expect(PostgresTimestamp.format(Date(timeIntervalSince1970: 1_700_000_000.123456)) == "2023-11-14 22:13:20.123456+00")
        #expect(PostgresTimestamp.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31 23:59:59.500000+00")
        #expect(PostgresTimestamp.format(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29 00:00:00.000000+00")
        #expect(PostgresTimestamp.format(Date(timeIntervalSince1970: .infinity)) == nil)
    }

    @Test func parsesPostgresOutputStyles() {
        func seconds(_ text: String) -> Double? { PostgresTimestamp.parse(text)?.timeIntervalSince1970 }
        #expect(seconds("1970-01-01 00:00:00+00") == 0)
        #expect(seconds("2023-11-14 22:13:20.123456+00") == Double(1_700_000_000_123_456) / 1_000_000)
        #expect(seconds("2023-11-14 22:13:20.5+00") == 1_700_000_000.5)
        #expect(seconds("2023-11-15 03:43:20+05:30") == 1_700_000_000)
        #expect(seconds("2023-11-14 17:13:20-05") == 1_700_000_000)
        #expect(seconds("1970-01-01 00:00:00+00:00:10") == -10)
        #expect(seconds("2023-11-14 22:13:20") == 1_700_000_000)
        #expect(seconds("2023-11-14") == 1_699_920_000)
        #expect(seconds("0001-01-01 00:00:00+00 BC") == -62_167_219_200)
        #expect(PostgresTimestamp.parse("infinity") == .distantFuture)
        #expect(PostgresTimestamp.parse("-infinity") == .distantPast)
        for bad in ["", "2023-13-01", "2023-11-14 25:00", "yesterday", "2023-11-14 22:13:20.1234567+00", "2023-11-14 22:13:20+00 junk"] {
            #expect(PostgresTimestamp.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func roundTripsAcrossEras() {
        let samples: [Double] = [0, 1.000001, -1.000001, 1_700_000_000.654321, -62_135_596_800, 253_402_300_799.999999, -210_000_000_000]
        for seconds in samples {
            let date = Date(timeIntervalSince1970: seconds)
            guard let text = PostgresTimestamp.format(date), let back = PostgresTimestamp.parse(text) else {
                Issue.record("no round trip for \(seconds)")
                continue
            }
            #expect(abs(back.timeIntervalSince1970 - seconds) < 1e-6, "\(text)")
        }
    }

    @Test func civilDateConversionsAgree() {
        for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            let (year, month, day) = PostgresTimestamp.civil(fromDays: days)
            #expect(PostgresTimestamp.days(fromCivil: year, month, day) == days)
        }
    }
}
