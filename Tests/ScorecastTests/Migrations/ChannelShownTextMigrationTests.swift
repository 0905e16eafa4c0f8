import Foundation
import JSON
import Migrations
import Postgres
import Testing
import TestSupport

/// The upgrades that keep what a channel's phones show as text, and its last alert alone, keep
/// what was stored as jsonb before them: the same state, the same alert, and NULL where nothing
/// was accepted yet.
@Suite struct ChannelShownTextMigrationTests {
    @Test func theBodiesStoredAsJSONBKeepTheirStateAndAlert() async throws {
        let pool = try await TestDatabase.shared().makePool()
        do {
            let files = try SchemaFolder.read(DeliveryDatabase.schemaFolder)
            try await Migrator(files: files.filter { $0.number < 75 }, logger: TestDatabase.logger).migrate(pool)
            let database = DeliveryDatabase(pool: pool)
            let app = try await database.addApp()
            let shown = try await database.addChannel(appID: app)
            let untouched = try await database.addChannel(appID: app)
            let body = #"{"aps": {"event": "update", "timestamp": 1764447290, "content-state": {"homeScore": 1, "awayScore": 0, "period": "1H"}}}"#
            let alert = #"{"aps": {"alert": {"title": "Goal!", "body": "Bell 12'"}, "event": "update", "timestamp": 1764447280}}"#
            try await pool.execute("""
                UPDATE channels SET shown_payload = \(body)::jsonb, shown_at = now(), alert_payload = \(alert)::jsonb, alert_at = now()
                WHERE id = \(shown)
                """)

            try await Migrator(files: files, logger: TestDatabase.logger).migrate(pool)

            let rows = try await pool.query("""
                SELECT id, shown_payload, alert_payload, pg_typeof(shown_payload)::text AS type FROM channels ORDER BY id
                """)
            #expect(try rows.map { try $0.decode("id", as: Int64.self) } == [shown, untouched])
            #expect(try rows[0].decode("type", as: String.self) == "text")
            let storedShown = try #require(try rows[0].decode("shown_payload", as: String?.self))
            let storedAlert = try #require(try rows[0].decode("alert_payload", as: String?.self))
            #expect(try JSONParser().parse(Array(storedShown.utf8)) == (try JSONParser().parse(Array(body.utf8))))
            #expect(try JSONParser().parse(Array(storedAlert.utf8)) == .object(["aps": .object(["alert": .object([
                "title": .string("Goal!"), "body": .string("Bell 12'"),
            ])])]))
            #expect(try rows[1].decode("shown_payload", as: String?.self) == nil)
            #expect(try rows[1].decode("alert_payload", as: String?.self) == nil)
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }
}
