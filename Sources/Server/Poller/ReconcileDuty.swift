import Foundation
import Registry

/// Compares each app's channels with APNs' list, the same way `channels reconcile` does
/// (`ChannelRegistry.reconcile(app:fix:)`): reporting only, unless `SCORECAST_RECONCILE_FIX`
/// lets it delete orphans at APNs and mark vanished channels `gone`.
///
/// Paused apps are skipped (APNs refused their credentials; listing would fail the same way).
/// One app's failure is a warning and does not stop the others.
package struct ReconcileDuty: PollerDuty {
    /// `reconcile`.
    package let name = "reconcile"
    /// How often it runs.
    package let interval: Duration
    /// Whether it fixes what it finds.
    package let fix: Bool
    private let registry: ChannelRegistry

    /// Creates the duty.
    package init(registry: ChannelRegistry, interval: Duration, fix: Bool) {
        self.registry = registry
        self.interval = interval
        self.fix = fix
    }

    /// Reconciles every unpaused app.
    package func run(at now: Date) async throws -> DutyReport {
        var report = DutyReport(counts: ["apps": 0, "orphans": 0, "gone": 0, "orphans_deleted": 0, "marked_gone": 0, "failed": 0])
        for app in try await AppStore(pool: registry.pool).all() where app.pausedReason == nil {
            report.counts["apps", default: 0] += 1
            do {
                let result = try await registry.reconcile(app: app, fix: fix)
                report.counts["orphans", default: 0] += result.diff.orphans.count
                report.counts["gone", default: 0] += result.diff.gone.count
                report.counts["orphans_deleted", default: 0] += result.deletedOrphans.count
                report.counts["marked_gone", default: 0] += result.markedGone.count
                if let warning = Self.warning(for: result) { report.warnings.append(warning) }
            } catch {
                report.counts["failed", default: 0] += 1
                report.warnings.append("reconciling \(app.bundleID) (\(app.environment.rawValue)) failed: \(error)")
            }
        }
        return report
    }

    /// What an operator should hear about one app's result, if anything. Pure.
    static func warning(for result: ReconcileReport) -> String? {
        let app = "\(result.app.bundleID) (\(result.app.environment.rawValue))"
        let orphans = result.diff.orphans.count
        let gone = result.diff.gone.count
        guard orphans > 0 || gone > 0 || !result.failedOrphans.isEmpty else { return nil }
        let found = "\(orphans) channel(s) at APNs unknown to the registry, \(gone) registry channel(s) unknown to APNs"
        if !result.fixed {
            return "\(app): \(found); reporting only (set SCORECAST_RECONCILE_FIX=true or run `scorecast channels reconcile --fix`)"
        }
        let failed = result.failedOrphans.isEmpty ? "" : "; \(result.failedOrphans.count) orphan(s) could not be deleted and stay recorded"
        return "\(app): \(found); deleted \(result.deletedOrphans.count), marked \(result.markedGone.count) gone\(failed)"
    }
}
