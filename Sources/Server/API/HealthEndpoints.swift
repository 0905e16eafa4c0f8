import Foundation
import HTTPServer
import Migrations
import Postgres
import Statistics

/// `/healthz` (the process is alive: `503` once the embedded Postgres it supervises has been
/// down past its recovery limit, so that a supervisor restarts the process) and `/readyz` (the database answers and is fully
/// migrated; `503` with the reason otherwise). `/readyz` gives the database `databaseDeadline`
/// whatever the statement timeout, so a stalled database makes it answer `503` in time for a
/// load balancer's probe instead of hanging.
///
/// Paused apps are reported in `/readyz`'s detail but keep it `200`: restarting or draining the
/// process cannot fix refused credentials, and ingest must keep running meanwhile.
struct HealthEndpoints: Sendable {
    let pool: PostgresPool
    let migrator: Migrator
    let stats: StatsQuery
    /// Why the process is unhealthy, or `nil` (the embedded cluster's supervisor, when it runs one).
    var unhealthyReason: @Sendable () -> String? = { nil }

    /// How long `/readyz` waits on the database in all (pooled connection and statements).
    static let databaseDeadline = Duration.milliseconds(1500)

    /// `/readyz`'s answer when ready.
    struct Readiness: Codable, Sendable {
        var status = "ready"
        /// Migrations applied.
        var migrations: Int
        /// Apps whose sends are paused (`scorecast apps resume`), e.g. `com.example.scores (production): InvalidProviderToken`.
        var pausedApps: [String]
    }

    func register(on router: inout Router) {
        router.get("/healthz") { [unhealthyReason] _ in
            if let reason = unhealthyReason() { throw Problem.serviceUnavailable(reason) }
            return try .json(["status": "ok"])
        }
        router.get("/readyz") { _ in
            do {
                let (plan, paused) = try await PostgresDeadline.within(Self.databaseDeadline) {
                    (try await migrator.plan(pool), try await stats.pausedApps())
                }
                guard plan.isComplete else {
                    throw Problem.serviceUnavailable(
                        "database is not fully migrated: pending \(plan.pending.map(\.name).joined(separator: ", "))")
                }
                let pausedApps = paused.map { "\($0.app) (\($0.environment)): \($0.reason)" }
                return try .json(Readiness(migrations: plan.applied.count, pausedApps: pausedApps))
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
