import JSON
import Testing
@testable import APNsCore

@Suite struct LiveActivityPayloadTests {
    static let goal = LiveActivityPayload(
        timestamp: 1_764_453_600,
        event: .update,
        contentState: ["homeScore": 2, "awayScore": 1, "period": "2H", "clock": "67'"],
        staleDate: 1_764_454_200,
        relevanceScore: 75,
        alert: LiveActivityAlert(
            title: .localized(key: "GOAL_TITLE", arguments: ["Arsenal"]),
            body: .localized(key: "GOAL_BODY", arguments: ["Saka", "67"]),
            sound: "default"
        )
    )

    @Test func encodesTheApnsMdExampleByteForByte() throws {
        let text = String(decoding: try Self.goal.encode(for: .broadcast), as: UTF8.self)
        #expect(text == #"{"aps":{"alert":{"body":{"loc-args":["Saka","67"],"loc-key":"GOAL_BODY"},"sound":"default","title":{"loc-args":["Arsenal"],"loc-key":"GOAL_TITLE"}},"content-state":{"awayScore":1,"clock":"67'","homeScore":2,"period":"2H"},"event":"update","relevance-score":75,"stale-date":1764454200,"timestamp":1764453600}}"#)
        // And it parses back to a value that encodes to the same bytes.
        #expect(try JSONParser().parse(text).encodedString() == text)
    }

    @Test func encodesPlainAlertsAndEnd() throws {
        let end = LiveActivityPayload(
            timestamp: 100, event: .end, contentState: [:], dismissalDate: 200,
            alert: LiveActivityAlert(title: .plain("Full time"), body: .plain("2–1"))
        )
        let text = String(decoding: try end.encode(for: .broadcast), as: UTF8.self)
        #expect(text == #"{"aps":{"alert":{"body":"2–1","title":"Full time"},"content-state":{},"dismissal-date":200,"event":"end","timestamp":100}}"#)
    }

    @Test func encodesAPushToStartForADevice() throws {
        let start = LiveActivityPayload(
            timestamp: 10, event: .start, contentState: ["homeScore": 0],
            alert: LiveActivityAlert(title: .plain("Kick-off")),
            attributesType: "GameAttributes", attributes: ["gameId": "g1"],
            inputPushChannel: "dHN0LTEyMzQ=", inputPushToken: true
        )
        let text = String(decoding: try start.encode(for: .device), as: UTF8.self)
        #expect(text == #"{"aps":{"alert":{"title":"Kick-off"},"attributes":{"gameId":"g1"},"attributes-type":"GameAttributes","content-state":{"homeScore":0},"event":"start","input-push-channel":"dHN0LTEyMzQ=","input-push-token":1,"timestamp":10}}"#)
    }

    static func refusals() -> [(LiveActivityPayload, PushTarget, LiveActivityPayloadError)] {
        let base = LiveActivityPayload(timestamp: 1, event: .update, contentState: ["a": 1])
        var start = base
        start.event = .start
        var withAttributes = base
        withAttributes.attributes = ["x": 1]
        var withChannel = base
        withChannel.inputPushChannel = "abc"
        var startMissingAttributes = start
        startMissingAttributes.attributesType = "T"
        var startMissingAlert = startMissingAttributes
        startMissingAlert.attributes = [:]
        var startBadAttributes = startMissingAlert
        startBadAttributes.alert = LiveActivityAlert(body: .plain("x"))
        startBadAttributes.attributes = [1]
        var notObject = base
        notObject.contentState = [1, 2]
        var dismissalOnUpdate = base
        dismissalOnUpdate.dismissalDate = 5
        var negative = base
        negative.staleDate = -1
        var nanScore = base
        nanScore.relevanceScore = .nan
        var emptyAlert = base
        emptyAlert.alert = LiveActivityAlert(sound: "default")
        var nanState = base
        nanState.contentState = ["x": ["y": .double(.infinity)]]
        return [
            (start, .broadcast, .startNotAllowedForBroadcast),
            (withAttributes, .broadcast, .startOnlyKey("attributes", event: .update, target: .broadcast)),
            (withChannel, .device, .startOnlyKey("input-push-channel", event: .update, target: .device)),
            (start, .device, .missingStartKey("attributes-type")),
            (startMissingAttributes, .device, .missingStartKey("attributes")),
            (startMissingAlert, .device, .missingStartKey("alert")),
            (startBadAttributes, .device, .notAnObject(key: "attributes", actualType: "array")),
            (notObject, .broadcast, .notAnObject(key: "content-state", actualType: "array")),
            (dismissalOnUpdate, .broadcast, .dismissalDateRequiresEnd(event: .update)),
            (negative, .broadcast, .negativeTime(key: "stale-date", value: -1)),
            (nanScore, .broadcast, .nonFiniteNumber(path: "$.aps.relevance-score")),
            (emptyAlert, .broadcast, .emptyAlert),
            (nanState, .broadcast, .nonFiniteNumber(path: "$.aps.content-state.x.y")),
        ]
    }

    @Test(arguments: refusals())
    func refusesWhatTheTargetForbids(payload: LiveActivityPayload, target: PushTarget, expected: LiveActivityPayloadError) {
        #expect(throws: expected) { try payload.encode(for: target) }
    }

    /// A payload whose body is exactly `size` bytes, padding the alert body (outside the 4 KB
    /// Live Activity data) and, for small targets, the content-state.
    static func payload(ofSize size: Int) throws -> LiveActivityPayload {
        var payload = LiveActivityPayload(
            timestamp: 1, event: .update, contentState: ["pad": ""], alert: LiveActivityAlert(body: .plain(""))
        )
        let emptySize = try payload.jsonValue.encoded().count
        let padding = size - emptySize
        let statePadding = min(padding, 4_000)
        payload.contentState = ["pad": .string(String(repeating: "s", count: statePadding))]
        payload.alert = LiveActivityAlert(body: .plain(String(repeating: "b", count: padding - statePadding)))
        return payload
    }

    @Test(arguments: PushTarget.allCases)
    func acceptsExactlyTheLimit(target: PushTarget) throws {
        let payload = try Self.payload(ofSize: target.payloadLimit)
        #expect(try payload.encode(for: target).count == target.payloadLimit)
    }

    @Test(arguments: PushTarget.allCases)
    func refusesOneByteOverTheLimitWithTheSize(target: PushTarget) throws {
        let payload = try Self.payload(ofSize: target.payloadLimit + 1)
        let expected = LiveActivityPayloadError.payloadTooLarge(size: target.payloadLimit + 1, limit: target.payloadLimit, target: target)
        #expect(throws: expected) { try payload.encode(for: target) }
        #expect(expected.description == "\(target) payload is \(target.payloadLimit + 1) bytes, over the \(target.payloadLimit)-byte limit")
    }

    @Test func refusesLiveActivityDataOver4KB() throws {
        let overhead = try JSONValue.object(["pad": ""]).encoded().count
        var payload = LiveActivityPayload(timestamp: 1, event: .update, contentState: ["pad": .string(String(repeating: "x", count: 4_096 - overhead))])
        #expect(try payload.encode(for: .broadcast).count > 4_096)
        payload.contentState = ["pad": .string(String(repeating: "x", count: 4_097 - overhead))]
        #expect(throws: LiveActivityPayloadError.liveActivityDataTooLarge(size: 4_097, limit: 4_096)) {
            try payload.encode(for: .broadcast)
        }
    }

    @Test func sameValuesGiveSameBytes() throws {
        var other = LiveActivityPayload(timestamp: 1_764_453_600, event: .update, contentState: ["period": "2H", "clock": "67'", "awayScore": 1, "homeScore": 2])
        other.alert = Self.goal.alert
        other.relevanceScore = 75.0
        other.staleDate = 1_764_454_200
        #expect(try other.encode(for: .broadcast) == Self.goal.encode(for: .broadcast))
    }
}
