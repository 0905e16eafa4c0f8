import Foundation
import TestSupport
import Testing

/// The variables a command reads beside its options go through the settings table, as `serve`'s
/// do: a bad value is refused with the variable named (a secret's value never echoed), and
/// `scorecast config` lists them, secrets hidden. Through the built binary.
@Suite struct CommandSettingsTests {
    @Test func eventsSendRefusesAMalformedFeedKeyByNameWithoutEchoingIt() async throws {
        let secret = "not-a-feed-key-4f1d9c"
        // Port 9 (discard) is never reached: the key is refused before anything is sent.
        let run = try await ScorecastProcess.run(
            ["events", "send", "--url", "http://127.0.0.1:9", "--json", #"{"id": "e1"}"#],
            environment: ["SCORECAST_API_KEY": secret])
        #expect(run.code == 2, "\(run.stderr)")
        #expect(run.stderr.contains("SCORECAST_API_KEY"), "\(run.stderr)")
        #expect(!run.stderr.contains(secret) && !run.stdout.contains(secret))
    }

    @Test func apnsSimRefusesAnUnknownLogLevelByName() async throws {
        // The unknown flag makes the simulator stop at once should the level pass unchecked.
        let run = try await ScorecastProcess.run(["apns-sim", "--no-such-flag"], environment: ["SCORECAST_LOG_LEVEL": "loud"])
        #expect(run.code == 2, "\(run.stderr)")
        #expect(run.stderr.contains("SCORECAST_LOG_LEVEL"), "\(run.stderr)")
    }

    @Test func configListsTheFeedSecretsHidden() async throws {
        let key = "sck_" + String(repeating: "a", count: 12) + "_" + String(repeating: "b", count: 64)
        let signing = "scs_" + String(repeating: "c", count: 64)
        let run = try await ScorecastProcess.run(["config"], environment: ["SCORECAST_API_KEY": key, "SCORECAST_SIGNING_SECRET": signing])
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stdout.contains("SCORECAST_API_KEY") && run.stdout.contains("SCORECAST_SIGNING_SECRET"), "\(run.stdout)")
        #expect(!run.stdout.contains(key) && !run.stdout.contains(signing))
    }
}
