import Foundation
import JSON
import ScorecastCore
import Testing

@Suite struct TokenBucketTests {
    @Test func burstThenRefillAtTheRate() {
        var bucket = TokenBucket(capacity: 3, ratePerSecond: 1, now: 100)
        #expect(bucket.take(now: 100) == .allowed)
        #expect(bucket.take(now: 100) == .allowed)
        #expect(bucket.take(now: 100) == .allowed)
        #expect(bucket.take(now: 100) == .limited(retryAfter: 1))
        #expect(bucket.take(now: 100.5) == .limited(retryAfter: 0.5))
        #expect(bucket.take(now: 101) == .allowed)
        #expect(!bucket.isFull(now: 101))
        #expect(bucket.isFull(now: 104))
    }

    @Test func aClockStepsBackAddsNothing() {
        var bucket = TokenBucket(capacity: 1, ratePerSecond: 1, now: 50)
        #expect(bucket.take(now: 50) == .allowed)
        #expect(bucket.take(now: 10) == .limited(retryAfter: 1))
        #expect(bucket.take(now: 51) == .allowed)
    }
}

@Suite struct DeviceRulesTests {
    @Test func osVersions() throws {
        #expect(OSVersion("17.1")?.supportsPushToStart == false)
        #expect(OSVersion("17.2")?.supportsPushToStart == true)
        #expect(OSVersion("17.6.1")?.supportsChannels == false)
        #expect(OSVersion("18")?.supportsChannels == true)
        #expect(OSVersion("26.0.1")?.supportsChannels == true)
        for bad in ["", "18.", "a.b", "18.0.0.1", "1234", "-1", "18.x"] { #expect(OSVersion(bad) == nil, "\(bad)") }
    }

    @Test func deviceTokens() {
        let token = String(repeating: "Ab", count: 32)
        #expect(DeviceToken.normalize(token) == token.lowercased())
        #expect(DeviceToken.normalize(String(repeating: "a", count: 63)) == nil)
        #expect(DeviceToken.normalize(String(repeating: "a", count: 65)) == nil)
        #expect(DeviceToken.normalize(String(repeating: "g", count: 64)) == nil)
        #expect(DeviceToken.normalize(String(repeating: "a", count: 514)) == nil)
    }

    @Test func theInputFollowsTheDeviceAndItsSetting() {
        #expect(ActivityInput.choose(supportsChannels: false, frequentUpdates: true, standardChannel: "s", lightChannel: "l") == .token)
        #expect(ActivityInput.choose(supportsChannels: true, frequentUpdates: true, standardChannel: "s", lightChannel: "l") == .channel(id: "s", light: false))
        #expect(ActivityInput.choose(supportsChannels: true, frequentUpdates: false, standardChannel: "s", lightChannel: "l") == .channel(id: "l", light: true))
        #expect(ActivityInput.choose(supportsChannels: true, frequentUpdates: false, standardChannel: "s", lightChannel: nil) == .channel(id: "s", light: false))
        #expect(ActivityInput.choose(supportsChannels: true, frequentUpdates: true, standardChannel: nil, lightChannel: nil) == .token)
    }

    @Test func verdictsFromApnsAnswers() {
        #expect(DevicePushVerdict.classify(status: 200, reason: nil) == .delivered)
        #expect(DevicePushVerdict.classify(status: 410, reason: .unregistered) == .pruneToken(reason: "Unregistered"))
        #expect(DevicePushVerdict.classify(status: 400, reason: .badDeviceToken) == .pruneToken(reason: "BadDeviceToken"))
        #expect(DevicePushVerdict.classify(status: 400, reason: .deviceTokenNotForTopic) == .pruneToken(reason: "DeviceTokenNotForTopic"))
        #expect(DevicePushVerdict.classify(status: 429, reason: .tooManyRequests) == .retry(reason: "TooManyRequests"))
        #expect(DevicePushVerdict.classify(status: 503, reason: nil) == .retry(reason: "HTTP 503"))
        #expect(DevicePushVerdict.classify(status: 413, reason: .payloadTooLarge) == .fail(reason: "PayloadTooLarge"))
        #expect(DevicePushVerdict.classify(status: 403, reason: .topicMismatch) == .fail(reason: "TopicMismatch"))
    }

    @Test func aPushToStartCarriesEveryStartKeyAndFitsADevice() throws {
        let composer = PushToStartComposer(settings: RenderSettings())
        var state = GameState.initial
        state.status = .live
        state.homeScore = 1
        let game = GameInfo(sport: "football", homeName: "Arsenal", awayName: "Chelsea")
        let attributes = JSONValue.object(["gameID": .string("g1")])
        let now = Date(timeIntervalSince1970: 1_764_453_600)
        let viaChannel = try composer.compose(game: game, state: state, attributes: attributes, input: .channel(id: "Y2hhbm5lbA==", light: false), now: now)
        #expect(viaChannel.event == .start)
        #expect(viaChannel.attributesType == "GameAttributes")
        #expect(viaChannel.attributes == attributes)
        #expect(viaChannel.alert != nil)
        #expect(viaChannel.inputPushChannel == "Y2hhbm5lbA==")
        #expect(viaChannel.inputPushToken == false)
        #expect(viaChannel.dismissalDate == nil)
        #expect(viaChannel.contentState.objectValue?["homeScore"] == .integer(1))
        #expect(try viaChannel.encode(for: .device).count <= 4096)
        let viaToken = try composer.compose(game: game, state: nil, attributes: attributes, input: .token, now: now)
        #expect(viaToken.inputPushToken == true)
        #expect(viaToken.inputPushChannel == nil)
        #expect(viaToken.timestamp == 1_764_453_600)
    }
}
