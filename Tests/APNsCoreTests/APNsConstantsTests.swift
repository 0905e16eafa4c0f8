import Testing
@testable import APNsCore

@Suite struct APNsConstantsTests {
    @Test func prioritiesAreApplesHeaderValues() {
        #expect(BroadcastPriority.immediate.headerValue == "10")
        #expect(BroadcastPriority.opportunistic.headerValue == "5")
        #expect(BroadcastPriority.low.headerValue == "1")
        #expect(BroadcastPriority(rawValue: 7) == nil)
        #expect(BroadcastPriority.opportunistic < .immediate)
    }

    @Test func storagePoliciesAreApplesNumbers() {
        #expect(ChannelStoragePolicy.noMessageStored.rawValue == 0)
        #expect(ChannelStoragePolicy.mostRecentMessageStored.rawValue == 1)
    }

    @Test(arguments: [
        (ChannelStoragePolicy.noMessageStored, 3600, 0),
        (.noMessageStored, 0, 0),
        (.mostRecentMessageStored, 0, 0),
        (.mostRecentMessageStored, 600, 1_000_600),
        (.mostRecentMessageStored, 100_000, 1_028_800),
    ])
    func expirationHeaderFollowsThePolicy(policy: ChannelStoragePolicy, offset: Int, expected: Int) {
        #expect(policy.expirationHeader(now: 1_000_000, desiredOffset: offset) == expected)
    }

    @Test func environmentsKnowApplesHosts() {
        #expect(APNsEnvironment.sandbox.defaultSendHost == "api.sandbox.push.apple.com")
        #expect(APNsEnvironment.production.defaultSendHost == "api.push.apple.com")
        #expect(APNsEnvironment.sandbox.defaultManagementHost == "api-manage-broadcast.sandbox.push.apple.com")
        #expect(APNsEnvironment.production.defaultManagementHost == "api-manage-broadcast.push.apple.com")
        #expect(APNsEnvironment.sandbox.defaultManagementPort == 2195)
        #expect(APNsEnvironment.production.defaultManagementPort == 2196)
        #expect(APNsEnvironment(rawValue: "production") == .production)
    }
}
