@testable import Registry
import Testing

@Suite("ReconcileDiff")
struct ReconcileDiffTests {
    typealias Channel = ReconcileDiff.RegistryChannel

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let apns: [String]
        let registry: [Channel]
        let recorded: [String]
        let orphans: [String]
        let gone: [Int64]
        let settled: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "both empty", apns: [], registry: [], recorded: [], orphans: [], gone: [], settled: []),
        Case(name: "in agreement", apns: ["a", "b"],
             registry: [Channel(id: 1, apnsChannelID: "a", status: .active), Channel(id: 2, apnsChannelID: "b", status: .retiring)],
             recorded: [], orphans: [], gone: [], settled: []),
        Case(name: "an orphan at APNs", apns: ["a", "x"], registry: [Channel(id: 1, apnsChannelID: "a", status: .active)],
             recorded: [], orphans: ["x"], gone: [], settled: []),
        Case(name: "a channel deleted behind our back", apns: ["a"],
             registry: [Channel(id: 1, apnsChannelID: "a", status: .active), Channel(id: 2, apnsChannelID: "b", status: .active)],
             recorded: [], orphans: [], gone: [2], settled: []),
        Case(name: "a retiring channel APNs forgot is gone too", apns: [],
             registry: [Channel(id: 3, apnsChannelID: "c", status: .retiring)], recorded: [], orphans: [], gone: [3], settled: []),
        Case(name: "deleted and gone rows are not expected at APNs", apns: [],
             registry: [Channel(id: 1, apnsChannelID: "a", status: .deleted), Channel(id: 2, apnsChannelID: "b", status: .gone)],
             recorded: [], orphans: [], gone: [], settled: []),
        Case(name: "a deleted channel APNs still lists is an orphan", apns: ["a"],
             registry: [Channel(id: 1, apnsChannelID: "a", status: .deleted)], recorded: [], orphans: ["a"], gone: [], settled: []),
        Case(name: "the other environment's live channel is no orphan", apns: ["p"],
             registry: [Channel(id: 9, apnsChannelID: "p", status: .active, ownedByApp: false)], recorded: [], orphans: [], gone: [], settled: []),
        Case(name: "the other environment's channel is never gone for this app", apns: [],
             registry: [Channel(id: 9, apnsChannelID: "p", status: .active, ownedByApp: false)], recorded: [], orphans: [], gone: [], settled: []),
        Case(name: "a recorded orphan still at APNs", apns: ["o"], registry: [], recorded: ["o"], orphans: ["o"], gone: [], settled: []),
        Case(name: "a recorded orphan APNs no longer lists is settled", apns: [], registry: [], recorded: ["o"], orphans: [], gone: [], settled: ["o"]),
        Case(name: "duplicate ids in APNs' list count once", apns: ["x", "x"], registry: [], recorded: [], orphans: ["x"], gone: [], settled: []),
        Case(name: "ids are compared byte for byte", apns: ["AbC="],
             registry: [Channel(id: 1, apnsChannelID: "abc=", status: .active)], recorded: [], orphans: ["AbC="], gone: [1], settled: []),
        Case(name: "everything at once", apns: ["a", "x", "o"],
             registry: [Channel(id: 1, apnsChannelID: "a", status: .active), Channel(id: 2, apnsChannelID: "b", status: .active),
                        Channel(id: 3, apnsChannelID: "d", status: .deleted)],
             recorded: ["o", "s"], orphans: ["x", "o"], gone: [2], settled: ["s"]),
    ]

    @Test(arguments: cases)
    func diff(_ testCase: Case) {
        let diff = ReconcileDiff(apnsChannelIDs: testCase.apns, registry: testCase.registry, recordedOrphans: testCase.recorded)
        #expect(diff.orphans.map(\.apnsChannelID) == testCase.orphans)
        #expect(diff.gone.map(\.id) == testCase.gone)
        #expect(diff.settledOrphanRecords == testCase.settled)
        #expect(diff.isClean == (testCase.orphans.isEmpty && testCase.gone.isEmpty && testCase.settled.isEmpty))
    }

    @Test func orphansSayWhatTheRegistryKnows() {
        let diff = ReconcileDiff(
            apnsChannelIDs: ["d", "g", "o", "n"],
            registry: [Channel(id: 1, apnsChannelID: "d", status: .deleted), Channel(id: 2, apnsChannelID: "g", status: .gone)],
            recordedOrphans: ["o"])
        #expect(diff.orphans == [
            .init(apnsChannelID: "d", registryStatus: .deleted, recorded: false),
            .init(apnsChannelID: "g", registryStatus: .gone, recorded: false),
            .init(apnsChannelID: "o", registryStatus: nil, recorded: true),
            .init(apnsChannelID: "n", registryStatus: nil, recorded: false),
        ])
    }
}
