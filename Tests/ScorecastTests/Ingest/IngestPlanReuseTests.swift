import Foundation
import Registry
import ScorecastLogging
import Postgres
import ScorecastCore
import ServiceBase
import Testing
import TestSupport

/// Ingest's statements are planned once per connection, not in every transaction: their
/// arrays of games made Postgres prefer a fresh custom plan each time (about 1 ms of planning
/// per transaction), and the plans they keep must still look rows up by index.
@Suite struct IngestPlanReuseTests {
    private static let start = Date(timeIntervalSince1970: 1_764_450_000)

    @Test func everyStatementOfTheTransactionIsPlannedOncePerConnection() async throws {
        try await IngestFixture.with { fixture in
            let games = (0..<3).map { "plan-\($0)" }
            for game in games {
                try await fixture.addGame(game)
                for _ in 0..<2 { _ = try await fixture.addChannel(boundTo: game) }
            }
            // One connection, so every transaction runs on the session whose statements are read.
            let pool = PostgresPool(configuration: fixture.pool.configuration, maxConnections: 1, logger: TestDatabase.logger)
            let ingestor = EventIngestor(pool: pool, settings: fixture.settings, logger: Logger(label: "ingest", level: .error))
            do {
                // One game, then two at once: arrays of different lengths reuse the same plans.
                for round in 1...12 {
                    let chosen = round.isMultiple(of: 2) ? [games[round % 3], games[(round + 1) % 3]] : [games[round % 3]]
                    let events = chosen.map { game in
                        FeedEvent(id: "\(game)-\(round)", game: game, seq: round, occurredAt: Self.start.addingTimeInterval(Double(round)),
                                  kind: .clock, scoreboard: ScoreboardUpdate(clock: .set("\(round)'")), team: .home)
                    }
                    let report = try await ingestor.ingest(events, feed: "feed-a")
                    #expect(report.results.map(\.outcome) == Array(repeating: .accepted, count: chosen.count))
                }
                let plans = try await pool.query("""
                    SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements
                    WHERE statement NOT LIKE '%pg_prepared_statements%'
                    """)
                let byStatement = try Dictionary(plans.map {
                    (try $0.decode("statement", as: String.self),
                     (generic: try $0.decode("generic_plans", as: Int64.self), custom: try $0.decode("custom_plans", as: Int64.self)))
                }) { first, _ in first }
                func plan(containing text: String) -> (generic: Int64, custom: Int64)? {
                    byStatement.first { $0.key.contains(text) }?.value
                }
                for text in ["FROM games WHERE id = ANY", "UPDATE games g SET", "o.xmin::text AS revision", "CROSS JOIN LATERAL", "INSERT INTO events"] {
                    let counts = try #require(plan(containing: text), "no prepared statement containing \(text)")
                    #expect(counts.custom == 0, "\(text): \(counts.custom) custom plans")
                    #expect(counts.generic >= 12, "\(text): \(counts.generic) generic plans")
                }
                // The plans kept look rows up by index, not by reading whole tables.
                let connection = try await pool.withTransaction(localSettings: ReusablePlans.settings) { connection in
                    try await connection.query("""
                        EXPLAIN SELECT o.channel_id FROM outbox o WHERE o.channel_id IN (
                            SELECT b.channel_id FROM channel_bindings b JOIN channels c ON c.id = b.channel_id
                            WHERE b.game_id = ANY(\(["plan-0"])) AND c.status = 'active')
                        """).map { try $0.decode("QUERY PLAN", as: String.self) }.joined(separator: "\n")
                }
                #expect(!connection.contains("Seq Scan on channels"), "\(connection)")
                #expect(!connection.contains("Seq Scan on channel_bindings"), "\(connection)")
            } catch {
                await pool.close()
                throw error
            }
            await pool.close()
        }
    }
}
