import Foundation
import Postgres
import TestSupport
import Testing

@Suite struct SmokeTests {
    @Test func selectOne() async throws {
        let pool = try await TestDatabase.shared().makePool()
        let rows = try await pool.query("SELECT 1::int8 AS one, \("héllo") AS greeting")
        #expect(try rows[0].decode("one", as: Int64.self) == 1)
        #expect(try rows[0].decode("greeting", as: String.self) == "héllo")
        await pool.close()
    }
}
