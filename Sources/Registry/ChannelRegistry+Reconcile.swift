import APNs
import Postgres

extension ChannelRegistry {
    /// Compares APNs' list of `app`'s channels with the registry (see `ReconcileDiff`) and,
    /// with `fix`, deletes the orphans at APNs, marks the gone channels `gone`, and settles
    /// `channel_orphans` (an orphan whose deletion fails stays recorded and is retried next time).
    ///
    /// Runs under the bundle's exclusive advisory lock so that no create is half-done while APNs
    /// and the registry are read. The poller calls this too.
    /// - Throws: `.apnsRefused`/`.apnsUnavailable` when the list cannot be read (nothing changes).
    package func reconcile(app: AppRecord, fix: Bool) async throws -> ReconcileReport {
        let credentials = try await credentials.credentials(for: app)
        let operation = "listing the channels of \(app.bundleID) (\(app.environment))"
        do {
            return try await pool.withTransaction { connection in
                try await connection.execute("SELECT pg_advisory_xact_lock(\(Self.bundleLockKey(app.bundleID)))")
                let response: APNsResponse
                do throws(APNsClientError) {
                    response = try await apns.list(bundleID: app.bundleID, credentials: credentials)
                } catch {
                    throw RegistryError.unavailable(error, while: operation)
                }
                guard response.isSuccess else { throw RegistryError.refused(response, while: operation) }
                guard let apnsIDs = response.channelIDs else {
                    throw RegistryError(.apnsUnavailable, "APNs answered \(operation) with a body that is not a channel list")
                }
                // Read after the list, under the lock: every channel APNs listed that a create
                // registered is visible now.
                let registry = try await channels.reconcileView(bundleID: app.bundleID, appID: app.id, on: connection)
                let recorded = try await channels.orphans(appID: app.id, on: connection)
                let diff = ReconcileDiff(apnsChannelIDs: apnsIDs, registry: registry, recordedOrphans: recorded)
                var report = ReconcileReport(
                    app: app, apnsChannelCount: apnsIDs.count,
                    registryLiveCount: registry.filter { $0.ownedByApp && $0.status.isLive }.count,
                    diff: diff, fixed: fix, deletedOrphans: [], failedOrphans: [], markedGone: [], clearedOrphanRecords: [])
                guard fix else { return report }

                for orphan in diff.orphans {
                    do throws(APNsClientError) {
                        let answer = try await apns.delete(bundleID: app.bundleID, channelID: orphan.apnsChannelID, credentials: credentials)
                        if answer.isSuccess || answer.reason == .channelNotRegistered {
                            report.deletedOrphans.append(orphan.apnsChannelID)
                        } else {
                            report.failedOrphans.append(.init(
                                apnsChannelID: orphan.apnsChannelID,
                                message: "APNs refused: \(answer.status) \(answer.reason?.rawValue ?? "")"))
                        }
                    } catch {
                        report.failedOrphans.append(.init(apnsChannelID: orphan.apnsChannelID, message: "APNs did not answer: \(error.message)"))
                    }
                }
                for failed in report.failedOrphans {
                    try await channels.recordOrphan(
                        appID: app.id, apnsChannelID: failed.apnsChannelID, reason: "reconcile could not delete it: \(failed.message)",
                        on: connection)
                }
                let ids = diff.gone.map(\.id)
                try await channels.markGone(ids: ids, on: connection)
                report.markedGone = ids
                let recordedSet = Set(recorded)
                report.clearedOrphanRecords = report.deletedOrphans.filter(recordedSet.contains) + diff.settledOrphanRecords
                try await channels.removeOrphans(appID: app.id, apnsChannelIDs: report.clearedOrphanRecords, on: connection)
                if !diff.isClean {
                    logger.notice("reconciled channels", [
                        "bundle_id": app.bundleID, "environment": app.environment.rawValue,
                        "orphans_deleted": String(report.deletedOrphans.count), "orphans_failed": String(report.failedOrphans.count),
                        "marked_gone": String(ids.count)])
                }
                return report
            }
        } catch let error as PostgresError {
            throw RegistryError.database(error, while: "reconciling \(app.bundleID) (\(app.environment))")
        }
    }
}
