@testable import Postgres
import Testing

/// `sendsSessionSettings` off (behind a transaction pooler): the startup packet carries no
/// settings of ours, only the caller's own `options`.
@Suite struct PoolerSessionSettingsTests {
    @Test func noSettingsOfOursTravelAtConnect() {
        var configuration = PostgresConfiguration(statementTimeout: .seconds(30), searchPath: ["t_1"])
        configuration.sendsSessionSettings = false
        let pairs = Dictionary(configuration.libpqParameters(), uniquingKeysWith: { $1 })
        #expect(pairs["options"] == nil)
        #expect(pairs["client_encoding"] == "UTF8")
        #expect(configuration.description.contains("session_settings=off"))
    }

    @Test func theCallersOwnOptionsStillDo() {
        var configuration = PostgresConfiguration(statementTimeout: .seconds(30), parameters: ["options": "-c work_mem=8MB"])
        configuration.sendsSessionSettings = false
        #expect(configuration.sessionOptions == "-c work_mem=8MB")
    }
}
