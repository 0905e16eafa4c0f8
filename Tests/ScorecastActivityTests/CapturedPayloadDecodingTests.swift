import Foundation
import ScorecastActivity
import Testing

/// Broadcasts captured from the APNs simulator's request log (`GET /requests` on its admin port)
/// during `scorecast demo --speed 60`, one replay per date encoding (`scorecast apps update
/// --date-encoding …` on the demo app; the two non-default captures keep only the payloads sent
/// after the switch). Each `content-state` decodes into the package's ContentState the way the
/// phone decodes it, every date right.
@Suite struct CapturedPayloadDecodingTests {
    static func captured(_ encoding: String) throws -> [[String: Any]] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Captured/demo-\(encoding).json")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
    }

    static func decoder(_ encoding: String) -> JSONDecoder {
        let decoder = JSONDecoder()
        switch encoding {
        case "unix-seconds": decoder.dateDecodingStrategy = .secondsSince1970
        case "iso8601": decoder.dateDecodingStrategy = .iso8601
        default: break  // reference-date: ActivityKit's own default decoder
        }
        return decoder
    }

    @Test(arguments: ["reference-date", "unix-seconds", "iso8601"])
    func everyCapturedContentStateDecodesWithItsDatesRight(encoding: String) throws {
        let payloads = try Self.captured(encoding)
        #expect(payloads.count >= 20)
        for aps in payloads {
            let timestamp = try #require(aps["timestamp"] as? Int)
            let json = try JSONSerialization.data(withJSONObject: try #require(aps["content-state"]))
            let state = try Self.decoder(encoding).decode(ContentState.self, from: json)
            #expect(state.version == ContentState.currentVersion)
            // The payload timestamp is the event's time in whole seconds (never going backwards).
            #expect(Int(state.updatedAt.timeIntervalSince1970) <= timestamp)
            #expect(Int(state.updatedAt.timeIntervalSince1970) >= timestamp - 1, "updatedAt \(state.updatedAt) vs timestamp \(timestamp)")
            if let last = state.lastEvent { #expect(last.occurredAt <= state.updatedAt) }
            if let clock = state.clock {
                #expect(clock.running == (clock.periodStartedAt != nil) && clock.running == (clock.stoppedAt == nil))
                if let anchor = clock.periodStartedAt ?? clock.stoppedAt { #expect(anchor <= state.updatedAt) }
            }
            if let stale = aps["stale-date"] as? Int { #expect(stale >= timestamp + 900) }
        }
    }

    @Test func theWholeMatchReadsRightToAFan() throws {
        let payloads = try Self.captured("reference-date")
        let states = try payloads.map { try JSONDecoder().decode(ContentState.self, from: JSONSerialization.data(withJSONObject: $0["content-state"] as Any)) }
        let final = try #require(states.last)
        #expect(final.status == .final && final.homeScore == 3 && final.awayScore == 2)
        #expect(final.scorers.map(\.minute) == [12, 33, 52, 64, 80])
        #expect(final.scorers.map(\.player) == ["Bell", "Doyle", "Grant", "Mensah", "Bell"])
        #expect(final.scorers.map(\.penalty) == [false, false, false, false, true])
        #expect(final.cards.map(\.colour) == [.yellow, .yellow, .yellow, .red, .yellow, .yellow, .yellow])
        #expect(final.cards.last.map { ContentState.minuteText($0.minute ?? 0, added: $0.addedMinute) } == "90+3'")
        #expect(final.redCards == .init(home: 0, away: 1))
        #expect(final.clock?.running == false)
        // During the first half the clock runs (at --speed 60 the feed's labels run 60 times
        // faster than time, so it is re-anchored at each label); at half-time it is stopped.
        let firstHalf = try #require(states.first { $0.period == "1H" && $0.lastEvent?.kind == .score })
        #expect(firstHalf.clock?.running == true && firstHalf.clock?.direction == .up && firstHalf.clock?.periodLength == 2700)
        let halfTime = try #require(states.first { $0.period == "HT" })
        #expect(halfTime.clock?.running == false && halfTime.clock?.seconds == 2820)
        // A clock tick never replaces the last notable play.
        #expect(!states.contains { $0.lastEvent?.kind == .clock })
        // Goal alerts name the minute and the scorer's short name.
        let goalTitles = payloads.compactMap { ($0["alert"] as? [String: Any])?["title"] as? [String: Any] }
            .filter { ($0["loc-key"] as? String)?.hasPrefix("SCORE_") == true }
            .compactMap { $0["loc-args"] as? [String] }
        #expect(goalTitles.first == ["12'", "Bell", "Northbridge United"])
        #expect(goalTitles.contains(["80'", "Bell", "Northbridge United"]))
    }
}
