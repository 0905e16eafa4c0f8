import APNs
import Postgres

extension ChannelRegistry {
    /// Asks APNs whether `app`'s credentials work, with a call that changes nothing: the list of
    /// its channels (`GET /1/apps/<bundle>/all-channels`). A fresh key is read from disk, not a
    /// cached one.
    /// - Throws: `.apnsRefused` with APNs' reason when the credentials are refused,
    ///   `.apnsUnavailable` when APNs does not answer, `.credentialsUnusable` when the key file
    ///   cannot be read.
    package func checkCredentials(of app: AppRecord) async throws {
        credentials.invalidate(CredentialStore.KeyReference(teamID: app.teamID, keyID: app.keyID, path: app.keyPath))
        let credentials = try await credentials.credentials(for: app)
        let operation = "a test call with the credentials of \(app.bundleID) (\(app.environment))"
        let response: APNsResponse
        do throws(APNsClientError) {
            response = try await apns.list(bundleID: app.bundleID, credentials: credentials)
        } catch {
            throw RegistryError.unavailable(error, while: operation)
        }
        guard response.isSuccess else { throw RegistryError.refused(response, while: operation) }
    }

    /// The start of the NOTIFY payload that wakes the workers after a resume; the app follows,
    /// so that every `serve` with workers logs the resume where its operator looks.
    package static let resumeNoticePrefix = "resumed:"

    /// The payload announcing that `app` resumed: `resumed:<bundle id> (<environment>)`.
    static func resumeNotice(_ app: AppRecord) -> String {
        resumeNoticePrefix + "\(app.bundleID) (\(app.environment.rawValue))"
    }

    /// Lifts `app`'s pause: its pending updates become claimable and the workers are woken
    /// (and log it).
    /// - Returns: whether the app was paused.
    @discardableResult
    package func resume(_ app: AppRecord) async throws -> Bool {
        let resumed: Bool
        do {
            resumed = try await pool.withTransaction { connection in
                // `updated_at` is an audit column (no rule reads it): it keeps the database's clock.
                let rows = try await connection.query("""
                    UPDATE apps SET paused_reason = NULL, paused_at = NULL, updated_at = now()
                    WHERE id = \(app.id) AND paused_at IS NOT NULL
                    RETURNING id
                    """)
                if !rows.isEmpty {
                    let notice = Self.resumeNotice(app)
                    try await connection.execute("SELECT pg_notify(\(EventIngestor.notificationChannel), \(notice))")
                }
                return !rows.isEmpty
            }
        } catch let error as PostgresError {
            throw RegistryError.database(error, while: "resuming \(app.bundleID) (\(app.environment))")
        }
        if resumed {
            logger.notice("app resumed: its sends start again", [
                "bundle_id": app.bundleID, "environment": app.environment.rawValue])
        }
        return resumed
    }
}
