import Postgres
import Statistics
import Testing
import TestSupport

/// The project's one percentile definition (``Percentile``) is the one PostgreSQL's
/// `percentile_cont` computes: `/v1/stats` (SQL), the dashboard (Swift roll-ups) and the bench
/// must report the same p99 for the same samples.
@Suite("Percentile agrees with PostgreSQL")
struct PercentileAgreementTests {
    @Test(arguments: [
        [1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        [0.4, 17.25, 3, 3, 250, 1.5, 42],
        [7.0],
        (0..<997).map { Double(($0 * 7_919) % 1_013) / 8 },
    ])
    func swiftAndSQLGiveTheSameFigures(samples: [Double]) async throws {
        let pool = try await TestDatabase.shared().makePool(maxConnections: 1)
        let rows: [PostgresRow]
        do {
            rows = try await pool.query("""
            SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) AS p50,
                   percentile_cont(0.95) WITHIN GROUP (ORDER BY v) AS p95,
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY v) AS p99
            FROM unnest(\(samples)::float8[]) AS v
            """)
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
        for (column, fraction) in [("p50", 0.5), ("p95", 0.95), ("p99", 0.99)] {
            let postgres = try rows[0].decode(column, as: Double.self)
            let swift = try #require(Percentile.value(of: samples.shuffled(), at: fraction))
            #expect(abs(swift - postgres) <= 1e-9 * max(1, abs(postgres)), "\(column): \(swift) vs \(postgres)")
        }
    }
}
