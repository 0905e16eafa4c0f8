@testable import Registry
import Testing

@Suite("ChannelLimit")
struct ChannelLimitTests {
    @Test(arguments: [
        (10_000, 0, ChannelLimit.Verdict.allowed),
        (10_000, 7_998, .allowed),
        (10_000, 7_999, .warning(afterCreate: 8_000, limit: 10_000)),
        (10_000, 9_999, .warning(afterCreate: 10_000, limit: 10_000)),
        (10_000, 10_000, .refused(count: 10_000, limit: 10_000)),
        (10_000, 12_000, .refused(count: 12_000, limit: 10_000)),
        (10, 6, .allowed),
        (10, 7, .warning(afterCreate: 8, limit: 10)),
        (3, 1, .allowed),
        (3, 2, .warning(afterCreate: 3, limit: 3)),
        (3, 3, .refused(count: 3, limit: 3)),
        (1, 0, .warning(afterCreate: 1, limit: 1)),
        (1, 1, .refused(count: 1, limit: 1)),
    ])
    func verdict(limit: Int, count: Int, expected: ChannelLimit.Verdict) {
        #expect(ChannelLimit(limit: limit).verdict(forCreatingWith: count) == expected)
    }

    @Test func thresholdIsEightyPercentRoundedUp() {
        #expect(ChannelLimit(limit: 10_000).warningThreshold == 8_000)
        #expect(ChannelLimit(limit: 3).warningThreshold == 3)
        #expect(ChannelLimit(limit: 11).warningThreshold == 9)
    }

    @Test func usageText() {
        #expect(ChannelLimit.usage(9_001, of: 10_000) == "9001 of 10000 (90%)")
        #expect(ChannelLimit.usage(0, of: 10_000) == "0 of 10000 (0%)")
    }
}
