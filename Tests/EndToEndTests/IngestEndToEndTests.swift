import EndToEndSupport
import Foundation
import ScorecastLogging
import Postgres
import Testing
import TestSupport

/// `scorecast keys …`, `scorecast serve` and `scorecast events send` as a user runs them: the
/// built binary against a Postgres schema of the test's own.
@Suite("End to end: feed keys and event ingest through the binary")
struct IngestEndToEndTests {
    /// A migrated schema and the environment pointing the binary at it.
    struct Setup {
        let environment: [String: String]
        let pool: PostgresPool
        let state: URL

        static func make() async throws -> Setup {
            let configuration = try await TestDatabase.shared().makeSchema()
            let state = FileManager.default.temporaryDirectory.appendingPathComponent("scorecast-e2e-\(UUID().uuidString)")
            let environment = [
                "SCORECAST_DATABASE_URL": configuration.urlIncludingPassword,
                "SCORECAST_STATE_DIR": state.path,
                "SCORECAST_LOG_LEVEL": "info",
            ]
            let migrate = try await ScorecastProcess.run(["migrate"], environment: environment)
            #expect(migrate.code == 0, "migrate: \(migrate.stderr)")
            return Setup(
                environment: environment,
                pool: PostgresPool(configuration: configuration, maxConnections: 2, logger: TestDatabase.logger), state: state)
        }

        func close() async {
            await pool.close()
            try? FileManager.default.removeItem(at: state)
        }
    }

    /// The `sck_…` tokens in `text`.
    static func tokens(in text: String) -> [String] {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\"" })
            .filter { $0.hasPrefix("sck_") && $0.count > 70 }.map(String.init)
    }

    @Test("keys create prints the key once; list never shows it; revoke; bad names and unknown keys")
    func keys() async throws {
        let setup = try await Setup.make()
        do {
            let created = try await ScorecastProcess.run(["keys", "create", "--name", "opta"], environment: setup.environment)
            #expect(created.code == 0, "\(created.stderr)")
            let printed = Self.tokens(in: created.stdout)
            #expect(printed.count == 1, "the key is printed exactly once:\n\(created.stdout)")
            let token = try #require(printed.first)
            #expect(created.stdout.contains("only this once"))

            let stored = try await setup.pool.query("SELECT prefix, encode(secret_hash, 'hex') AS hash, hmac_secret FROM api_keys")
            let row = try #require(stored.first)
            #expect(token.hasPrefix("sck_\(try row.decode("prefix", as: String.self))_"))
            #expect(try row.decode("hmac_secret", as: String?.self) == nil)

            let signed = try await ScorecastProcess.run(["keys", "create", "--name", "stats.feed", "--hmac", "--json"], environment: setup.environment)
            #expect(signed.code == 0, "\(signed.stderr)")
            let document = try JSONSerialization.jsonObject(with: Data(signed.stdout.utf8)) as? [String: String]
            #expect(document?["signingSecret"]?.hasPrefix("scs_") == true)
            #expect(document?["key"]?.hasPrefix("sck_") == true)

            for listing in [["keys", "list"], ["keys", "list", "--json"]] {
                let listed = try await ScorecastProcess.run(listing, environment: setup.environment)
                #expect(listed.code == 0)
                #expect(listed.stdout.contains("opta") && listed.stdout.contains("stats.feed"))
                #expect(Self.tokens(in: listed.stdout).isEmpty, "no key in \(listing)")
                #expect(!listed.stdout.contains("scs_"), "no signing secret in \(listing)")
            }

            let duplicate = try await ScorecastProcess.run(["keys", "create", "--name", "opta"], environment: setup.environment)
            #expect(duplicate.code == 2 && duplicate.stderr.contains("already exists"), "\(duplicate.stderr)")
            let badName = try await ScorecastProcess.run(["keys", "create", "--name", "no spaces"], environment: setup.environment)
            #expect(badName.code == 2)

            let revoked = try await ScorecastProcess.run(["keys", "revoke", "opta"], environment: setup.environment)
            #expect(revoked.code == 0, "\(revoked.stderr)")
            let afterRevoke = try await ScorecastProcess.run(["keys", "list"], environment: setup.environment)
            #expect(afterRevoke.stdout.contains("revoked"))
            let missing = try await ScorecastProcess.run(["keys", "revoke", "nobody"], environment: setup.environment)
            #expect(missing.code == 3, "\(missing.stderr)")
        } catch {
            await setup.close()
            throw error
        }
        await setup.close()
    }

    @Test("serve + events send: a goal lands in the outbox of the bound channel; duplicates and bad keys")
    func serveAndSend() async throws {
        let setup = try await Setup.make()
        do {
            let created = try await ScorecastProcess.run(["keys", "create", "--name", "feed-e2e"], environment: setup.environment)
            let token = try #require(Self.tokens(in: created.stdout).first, "\(created.stderr)")
            try await setup.pool.execute("""
                WITH app AS (
                    INSERT INTO apps (bundle_id, environment, team_id, key_id, key_path)
                    VALUES ('com.example.e2e', 'sandbox', 'TEAM123456', 'KEY1234567', '/keys/e2e.p8') RETURNING id
                ), game AS (
                    INSERT INTO games (id, home_team, away_team) VALUES ('ars-che', 'Arsenal', 'Chelsea') RETURNING id
                ), channel AS (
                    INSERT INTO channels (apns_channel_id, app_id, storage_policy) SELECT 'dHN0LWNoYW5uZWw=', id, 0 FROM app RETURNING id
                )
                INSERT INTO channel_bindings (channel_id, game_id) SELECT channel.id, game.id FROM channel, game
                """)

            var environment = setup.environment
            environment["SCORECAST_HTTP_PORT"] = "0"
            environment["SCORECAST_ROLES"] = "api"
            let server = try ScorecastProcess(["serve"], environment: environment)
            let line = try await server.waitForLine(containing: "HTTP API listening")
            let url = try #require(line.firstMatch(of: /http:\/\/127\.0\.0\.1:[0-9]+/).map { String($0.output) }, "\(line)")

            let goal = #"{"id": "goal-1", "game": "ars-che", "seq": 1, "occurredAt": "2025-11-29T20:00:00Z", "kind": "score", "team": "home", "player": "Saka", "scoreboard": {"home": 1, "away": 0, "period": "1H", "clock": "12'"}}"#
            let sent = try await ScorecastProcess.run(
                ["events", "send", "--url", url, "--json", goal], environment: ["SCORECAST_API_KEY": token])
            #expect(sent.code == 0, "\(sent.stderr)")
            #expect(sent.stdout.contains("goal-1") && sent.stdout.contains("accepted 1, duplicates 0, stale 0"), "\(sent.stdout)")

            let file = setup.state.appendingPathComponent("events.json")
            try FileManager.default.createDirectory(at: setup.state, withIntermediateDirectories: true)
            try Data("{\"events\": [\(goal)]}".utf8).write(to: file)
            let again = try await ScorecastProcess.run(
                ["events", "send", "--url", url, "--key", token, "--file", file.path, "--raw"], environment: [:])
            #expect(again.code == 0, "\(again.stderr)")
            #expect(again.stdout.contains("\"duplicate\""), "\(again.stdout)")

            let outbox = try await setup.pool.query("SELECT priority, alerting, convert_from(payload, 'UTF8') AS payload FROM outbox")
            let row = try #require(outbox.first)
            #expect(outbox.count == 1)
            #expect(try row.decode("priority", as: Int.self) == 10)
            #expect(try row.decode("alerting", as: Bool.self))
            let payload: String = try row.decode("payload")
            #expect(payload.contains("\"homeScore\":1") && payload.contains("\"event\":\"update\""), "\(payload)")

            let wrongKey = try await ScorecastProcess.run(
                ["events", "send", "--url", url, "--key", "sck_000000000000_" + String(repeating: "0", count: 64), "--json", goal],
                environment: [:])
            #expect(wrongKey.code == 1)
            #expect(wrongKey.stderr.contains("401"), "\(wrongKey.stderr)")
            let invalid = try await ScorecastProcess.run(
                ["events", "send", "--url", url, "--key", token, "--json", #"{"id": "x", "game": "ars-che", "seq": "one"}"#],
                environment: [:])
            #expect(invalid.code == 1)
            #expect(invalid.stderr.contains("422") && invalid.stderr.contains("seq:"), "\(invalid.stderr)")
            let noKey = try await ScorecastProcess.run(["events", "send", "--url", url, "--json", goal], environment: [:])
            #expect(noKey.code == 2)

            #expect(!server.output.contains(token) && !server.errorOutput.contains(token), "the key never reaches the server's log")
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0, "\(server.errorOutput)")
        } catch {
            await setup.close()
            throw error
        }
        await setup.close()
    }
}
