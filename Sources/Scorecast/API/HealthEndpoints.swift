import HTTPServer
import Postgres

/// `/healthz` (the process is alive) and `/readyz` (the database answers and is fully
/// migrated; `503` with the reason otherwise).
struct HealthEndpoints: Sendable {
    let pool: PostgresPool
    let migrator: Migrator

    func register(on router: inout Router) {
        router.get("/healthz") { _ in
            try .json(["status": "ok"])
        }
        router.get("/readyz") { _ in
            do {
                let plan = try await migrator.plan(pool)
                guard plan.isComplete else {
                    throw Problem.serviceUnavailable(
                        "database is not fully migrated: pending \(plan.pending.map(\.name).joined(separator: ", "))")
                }
                return try .json(["status": "ready", "migrations": "\(plan.applied.count)"])
            } catch let problem as Problem {
                throw problem
            } catch let error as PostgresError {
                throw Problem.serviceUnavailable("database unavailable: \(error.message)")
            } catch let error as MigrationError {
                throw Problem.serviceUnavailable("schema check failed: \(error)")
            }
        }
    }
}
