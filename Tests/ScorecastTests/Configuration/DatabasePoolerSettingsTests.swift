import Foundation
@testable import ServiceBase
import Testing

/// `SCORECAST_DATABASE_POOLER` and `SCORECAST_DATABASE_DIRECT_URL`: read, checked together,
/// and the direct URL never echoed.
@Suite struct DatabasePoolerSettingsTests {
    let workingDirectory = URL(fileURLWithPath: "/srv/scorecast")
    let main = "postgres://scorecast:pooled-secret@pgbouncer:6432/scorecast"
    let direct = "postgres://scorecast:direct-secret@db:5432/scorecast"

    func problems(_ environment: [String: String]) -> [String] {
        Configuration.problems(loading: environment, workingDirectory: workingDirectory)
    }

    @Test func byDefaultNoPoolerAndTheMainURLForSessions() throws {
        let configuration = try Configuration.load(from: ["SCORECAST_DATABASE_URL": main], workingDirectory: workingDirectory)
        #expect(configuration.databasePooler == .none)
        #expect(configuration.databaseDirectURL == nil)
    }

    @Test func aTransactionPoolerWithItsDirectURL() throws {
        let configuration = try Configuration.load(
            from: ["SCORECAST_DATABASE_URL": main, "SCORECAST_DATABASE_POOLER": "transaction", "SCORECAST_DATABASE_DIRECT_URL": direct],
            workingDirectory: workingDirectory)
        #expect(configuration.databasePooler == .transaction)
        #expect(configuration.databaseDirectURL == direct)
    }

    @Test func aTransactionPoolerNeedsADirectURL() {
        let found = problems(["SCORECAST_DATABASE_URL": main, "SCORECAST_DATABASE_POOLER": "transaction"])
        #expect(found.count == 1 && found[0].contains("SCORECAST_DATABASE_POOLER=transaction needs SCORECAST_DATABASE_DIRECT_URL"), "\(found)")
    }

    @Test func theEmbeddedClusterTakesNeither() {
        let found = problems(["SCORECAST_DATABASE_POOLER": "transaction", "SCORECAST_DATABASE_DIRECT_URL": direct])
        #expect(found.count == 1 && found[0].contains("need SCORECAST_DATABASE_URL"), "\(found)")
    }

    @Test func aBadDirectURLIsNamedAndNotEchoed() {
        let found = problems(["SCORECAST_DATABASE_URL": main, "SCORECAST_DATABASE_DIRECT_URL": "mysql://root:hunter2@db"])
        #expect(found.count == 1 && found[0].contains("SCORECAST_DATABASE_DIRECT_URL"), "\(found)")
        #expect(!found.joined().contains("hunter2"))
    }

    @Test func anUnknownPoolerIsNamed() {
        let found = problems(["SCORECAST_DATABASE_URL": main, "SCORECAST_DATABASE_POOLER": "session"])
        #expect(found.contains { $0.contains("SCORECAST_DATABASE_POOLER must be one of none, transaction") }, "\(found)")
    }
}
