import Postgres

extension TestDatabase {
    /// Makes pg_walinspect's functions callable from every test's schema, for tests that count
    /// the WAL records their statements wrote. The extension is created once per database, in
    /// `pg_catalog`, which every search path includes (created from a test's own schema, it would
    /// land there, out of every other test's reach); a creation racing another is settled by the
    /// extension being there afterwards.
    public func enableWALInspection() async throws {
        let connection = try await PostgresConnection.connect(configuration: configuration, logger: Self.logger)
        do {
            let present: SQL = "SELECT 1 FROM pg_extension WHERE extname = 'pg_walinspect'"
            if try await connection.query(present).isEmpty {
                do {
                    _ = try await connection.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect SCHEMA pg_catalog")
                } catch {
                    if try await connection.query(present).isEmpty { throw error }
                }
            }
        } catch {
            await connection.close()
            throw error
        }
        await connection.close()
    }
}
