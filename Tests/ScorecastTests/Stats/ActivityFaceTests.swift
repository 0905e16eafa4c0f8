import Foundation
import JSON
import ScorecastCore
@testable import Statistics
import Testing

/// Reading what a phone shows from an accepted body: pure.
@Suite struct ActivityFaceTests {
    static let now = Date(timeIntervalSince1970: 1_764_447_300)

    static func body(state: String, alert: String? = nil, event: String = "update") -> [UInt8] {
        Array(#"{"aps": {"timestamp": 1764447290, "event": "\#(event)", "content-state": \#(state)\#(alert.map { #", "alert": \#($0)"# } ?? "")}}"#.utf8)
    }

    /// A running clock without a label is read at the snapshot's time, its anchor decoded in
    /// the app's own date encoding.
    @Test(arguments: [
        (ContentDateEncoding.referenceDate, "\(ActivityFaceTests.now.timeIntervalSinceReferenceDate - 100)"),
        (.unixSeconds, "\(Int(ActivityFaceTests.now.timeIntervalSince1970) - 100)"),
        (.iso8601, "\"2025-11-29T20:13:20Z\""),
    ])
    func aRunningClockIsReadAtTheSnapshot(encoding: ContentDateEncoding, anchor: String) throws {
        let state = #"{"status": "live", "homeScore": 0, "awayScore": 1, "clock": {"running": true, "direction": "up", "seconds": 2700, "periodStartedAt": \#(anchor)}, "scorers": [{"team": "away", "player": "Hale", "minute": 45, "addedMinute": 2, "ownGoal": false, "penalty": true}], "cards": [], "extra": {}, "updatedAt": 0, "version": 2}"#
        let face = try #require(ActivityFace.read(
            shown: Self.body(state: state), shownAt: Self.now, alert: nil, alertAt: nil, dateEncoding: encoding, now: Self.now))
        #expect(face.clock == "46:40", "45:00 plus the 100 s since the anchor")
        #expect(face.awayScorers == ["Hale 45+2' (pen)"] && face.homeScorers.isEmpty)
        #expect(face.alert == nil && face.redCards == nil)
    }

    /// A localized alert reads as the String Catalog's English text; a key the catalog lacks
    /// reads as the key with its arguments, as the device shows it; a stopped clock reads as is.
    @Test func alertsReadInEnglishFromTheStringCatalog() throws {
        let state = #"{"status": "final", "homeScore": 2, "awayScore": 1, "period": "FT", "clock": {"running": false, "direction": "down", "seconds": 254}, "lastEvent": {"kind": "final", "occurredAt": 0}, "redCards": {"home": 1, "away": 0}, "scorers": [], "cards": [], "extra": {}, "updatedAt": 0, "version": 2}"#
        let alert = #"{"title": {"loc-key": "FINAL_TITLE", "loc-args": ["Arsenal", "Chelsea"]}, "body": {"loc-key": "NOT_IN_CATALOG %@!", "loc-args": ["x"]}, "sound": "default"}"#
        let at = Self.now.addingTimeInterval(-60)
        let face = try #require(ActivityFace.read(
            shown: Self.body(state: state, event: "end"), shownAt: Self.now, alert: Self.body(state: state, alert: alert), alertAt: at,
            dateEncoding: .referenceDate, now: Self.now))
        #expect(face.event == "end" && face.status == "final" && face.period == "FT")
        #expect(face.clock == "4:14" && face.lastPlay == "final" && face.redCards == [1, 0])
        #expect(face.alert == ShownAlert(acceptedAt: at, title: "Final: Arsenal vs Chelsea", body: "NOT_IN_CATALOG x!", sound: "default"))
        #expect(ActivityFace.read(shown: Array(#"{"aps": {"alert": "hi"}}"#.utf8), shownAt: Self.now, alert: nil, alertAt: nil, dateEncoding: .referenceDate, now: Self.now) == nil)
    }

    /// An app that renamed its content-state's keys: the face reads the body back through the
    /// app's mapping and shows what the default shape would.
    @Test func aRenamedContentStateReadsThroughTheAppsMapping() throws {
        let state = #"{"status": "live", "homeScore": 2, "awayScore": 1, "period": "2H", "clock": {"running": false, "direction": "up", "seconds": 4020, "label": "67'"}, "lastEvent": {"kind": "score", "minute": 67, "player": "Saka", "text": "Saka curls it in", "occurredAt": 0}, "scorers": [{"team": "home", "player": "Saka", "minute": 67, "ownGoal": false, "penalty": false}], "redCards": {"home": 0, "away": 1}, "cards": [], "extra": {}, "updatedAt": 0, "version": 2}"#
        let mapping = try ContentStateMapping(renames: [
            "homeScore": "home", "awayScore": "away", "clock.label": "text", "lastEvent": "last", "lastEvent.text": "summary",
            "scorers": "goals", "scorers.player": "name", "redCards": "sendOffs",
        ])
        let renamed = mapping.apply(to: try JSONParser().parse(Array(state.utf8)))
        let sent = Self.body(state: try renamed.encodedString())
        let expected = try #require(ActivityFace.read(
            shown: Self.body(state: state), shownAt: Self.now, alert: nil, alertAt: nil, dateEncoding: .referenceDate, now: Self.now))
        #expect(expected.homeScore == 2 && expected.clock == "67'" && expected.homeScorers == ["Saka 67'"] && expected.redCards == [0, 1])
        let face = ActivityFace.read(
            shown: sent, shownAt: Self.now, alert: nil, alertAt: nil, mapping: mapping, dateEncoding: .referenceDate, now: Self.now)
        #expect(face == expected)
    }
}
