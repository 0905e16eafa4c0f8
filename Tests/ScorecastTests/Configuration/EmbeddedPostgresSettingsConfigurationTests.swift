import Foundation
import Postgres
@testable import ServiceBase
import Testing

/// `SCORECAST_EMBEDDED_POSTGRES_SETTINGS`: read into the embedded cluster's extra settings,
/// each bad item named, and refused beside a database URL (it would change nothing there).
@Suite struct EmbeddedPostgresSettingsConfigurationTests {
    let workingDirectory = URL(fileURLWithPath: "/srv/scorecast")

    func problems(_ environment: [String: String]) -> [String] {
        Configuration.problems(loading: environment, workingDirectory: workingDirectory)
    }

    @Test func unsetMeansScorecastsSettingsAlone() throws {
        #expect(try Configuration.load(from: [:], workingDirectory: workingDirectory).embeddedPostgresSettings == [])
    }

    @Test func itemsAreReadInOrder() throws {
        let configuration = try Configuration.load(
            from: ["SCORECAST_EMBEDDED_POSTGRES_SETTINGS": "commit_delay=0; wal_compression=off;shared_preload_libraries=a,b"],
            workingDirectory: workingDirectory)
        #expect(configuration.embeddedPostgresSettings.map(\.description) == ["commit_delay=0", "wal_compression=off", "shared_preload_libraries=a,b"])
    }

    @Test func aReservedOrMalformedItemIsNamed() {
        #expect(problems(["SCORECAST_EMBEDDED_POSTGRES_SETTINGS": "commit_delay=0;port=6543"])
            == ["SCORECAST_EMBEDDED_POSTGRES_SETTINGS: the embedded Postgres's port is scorecast's own and cannot be set"])
        #expect(problems(["SCORECAST_EMBEDDED_POSTGRES_SETTINGS": "shared buffers=1GB"]).first?
            .hasPrefix("SCORECAST_EMBEDDED_POSTGRES_SETTINGS: \"shared buffers\" is not a Postgres setting name") == true)
    }

    @Test func withADatabaseURLItIsRefused() {
        let found = problems(["SCORECAST_DATABASE_URL": "postgres://db/scorecast", "SCORECAST_EMBEDDED_POSTGRES_SETTINGS": "commit_delay=0"])
        #expect(found.count == 1 && found[0].contains("SCORECAST_EMBEDDED_POSTGRES_SETTINGS applies to the embedded cluster only"), "\(found)")
    }
}
