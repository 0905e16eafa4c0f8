import Foundation
import Registry
import ScorecastCore
import ServiceBase
import Testing

@Suite("Ingest settings from the environment")
struct IngestSettingsTests {
    @Test("defaults")
    func defaults() throws {
        let settings = IngestSettings(configuration: try Configuration.load(from: [:]))
        #expect(settings.maximumBatchSize == 500)
        #expect(settings.maximumBodyBytes == 1_048_576)
        #expect(settings.createUnknownGames)
        #expect(settings.signatureTolerance == 300)
        #expect(settings.shaping.routineInterval == 10)
        #expect(settings.staleness.seconds(for: "football") == 900)
    }

    @Test("every ingest variable is read")
    func configured() throws {
        let configuration = try Configuration.load(from: [
            "SCORECAST_INGEST_MAX_BATCH": "20", "SCORECAST_HTTP_MAX_BODY_BYTES": "4096", "SCORECAST_UNKNOWN_GAMES": "refuse",
            "SCORECAST_SIGNATURE_TOLERANCE_SECONDS": "30", "SCORECAST_ROUTINE_INTERVAL_MS": "1500",
            "SCORECAST_STALE_SECONDS": "600, Basketball=120,soccer=300",
        ])
        let settings = IngestSettings(configuration: configuration)
        #expect(settings.maximumBatchSize == 20)
        #expect(settings.maximumBodyBytes == 4096)
        #expect(!settings.createUnknownGames)
        #expect(settings.signatureTolerance == 30)
        #expect(settings.shaping.routineInterval == 1.5)
        #expect(settings.staleness.seconds(for: "basketball") == 120)
        #expect(settings.staleness.seconds(for: "SOCCER") == 300)
        #expect(settings.staleness.seconds(for: "cricket") == 600)
    }

    @Test("a bad stale-date setting names the variable", arguments: ["abc", "0", "soccer=", "=5", "soccer=99999999"])
    func badStaleSetting(_ value: String) {
        #expect(throws: ConfigurationError.self) {
            try Configuration.load(from: ["SCORECAST_STALE_SECONDS": value])
        }
        do {
            _ = try Configuration.load(from: ["SCORECAST_STALE_SECONDS": value])
        } catch {
            #expect(error.description.contains("SCORECAST_STALE_SECONDS"))
        }
    }
}
