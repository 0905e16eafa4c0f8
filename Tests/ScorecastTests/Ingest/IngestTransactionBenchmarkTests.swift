import Foundation
import Registry
import ScorecastLogging
import Postgres
import ScorecastCore
import Testing

/// Time per ingest transaction (one group commit: ten events for ten games with five active
/// channels each) against the test database, sequentially, once with durable commits (the
/// commit's fsync dominates) and once with `synchronous_commit=off` on the ingest sessions (what
/// is left: round trips and server work). Prints the medians and means; asserts the values every
/// transaction wrote. Set `SCORECAST_INGEST_BENCH_N` for a longer run.
@Suite(.serialized) struct IngestTransactionBenchmarkTests {
    private static let games = (0..<10).map { "bench-\($0)" }
    private static let start = Date(timeIntervalSince1970: 1_764_450_000)

    @Test func timePerIngestTransaction() async throws {
        let rounds = ProcessInfo.processInfo.environment["SCORECAST_INGEST_BENCH_N"].flatMap(Int.init) ?? 40
        try await IngestFixture.with { fixture in
            for game in Self.games {
                try await fixture.addGame(game)
                for _ in 0..<5 { try await fixture.addChannel(boundTo: game) }
            }
            let logger = Logger(label: "bench", level: .error)
            var configuration = fixture.pool.configuration
            configuration.parameters["options"] = ((configuration.parameters["options"].map { [$0] } ?? []) + ["-c synchronous_commit=off"])
                .joined(separator: " ")
            let asynchronous = PostgresPool(configuration: configuration, maxConnections: 1, logger: logger)
            let durable = try await measure(
                EventIngestor(pool: fixture.pool, settings: fixture.settings, logger: logger), rounds: 1...rounds)
            let fast: String
            do {
                fast = try await measure(
                    EventIngestor(pool: asynchronous, settings: fixture.settings, logger: logger), rounds: (rounds + 1)...(2 * rounds))
            } catch {
                await asynchronous.close()
                throw error
            }
            await asynchronous.close()
            let seqs = try await fixture.pool.query("SELECT applied_seq FROM games ORDER BY id").map { try $0.decode("applied_seq", as: Int.self) }
            #expect(seqs == Array(repeating: 2 * rounds, count: Self.games.count))
            #expect(try await fixture.pool.query("SELECT count(*) AS n FROM outbox")[0].decode("n", as: Int.self) == 50)
            print("ingest transaction, \(rounds) rounds each: durable \(durable); synchronous_commit=off \(fast)")
        }
    }

    /// Ingests one request per round; returns "median …, mean …" over all but the first rounds
    /// (they prepare statements).
    private func measure(_ ingestor: EventIngestor, rounds: ClosedRange<Int>) async throws -> String {
        let clock = ContinuousClock()
        var times: [Duration] = []
        for round in rounds {
            let events = Self.games.map { game in
                FeedEvent(
                    id: "\(game)-\(round)", game: game, seq: round, occurredAt: Self.start.addingTimeInterval(Double(round)),
                    kind: round == 1 ? .start : .clock, scoreboard: ScoreboardUpdate(clock: .set("\(round)'")), team: .home)
            }
            let began = clock.now
            let report = try await ingestor.ingest(events, feed: "feed-a")
            times.append(clock.now - began)
            #expect(report.results.map(\.outcome) == Array(repeating: .accepted, count: Self.games.count))
        }
        let sorted = times.dropFirst(min(5, times.count - 1)).sorted()
        let mean = sorted.reduce(Duration.zero, +) / sorted.count
        func ms(_ duration: Duration) -> String {
            String(format: "%.2f ms", Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000)
        }
        return "median \(ms(sorted[sorted.count / 2])), mean \(ms(mean))"
    }
}
