import APNs
import APNsCore
import Clocks
import Foundation
import Postgres
import ScorecastCore
import ScorecastLogging

/// The channel lifecycle against APNs and the registry: create (with its binding), ensure one
/// channel per game for every app with automatic channels, delete, and reconcile.
///
/// Nothing leaks: a channel is recorded in the same transaction that asked APNs for it, and if
/// that transaction fails after APNs created the channel, the channel is deleted at APNs again
/// or, failing that, recorded in `channel_orphans` for `reconcile` to delete later.
///
/// Creates hold a shared advisory lock on the app's bundle id and `reconcile` an exclusive one,
/// so reconciliation never sees a channel that APNs has and whose registry write is still in
/// flight.
package struct ChannelRegistry: Sendable {
    /// The database.
    package let pool: PostgresPool
    /// APNs channel management.
    package let apns: any ChannelManaging
    /// Each app's credentials.
    package let credentials: CredentialStore
    /// Channels per app and environment (`SCORECAST_CHANNEL_LIMIT`).
    package let channelLimit: ChannelLimit
    /// `stale-date` per sport, for the current state a new channel is seeded with.
    package let staleness: StalenessPolicy
    /// The time games are added and new channels' seeds fall due at (the workers claim by it).
    package let clock: any ServiceClock
    let logger: Logger

    /// Creates a registry; `staleness` is ingest's (`IngestSettings.staleness`).
    package init(
        pool: PostgresPool, apns: any ChannelManaging, credentials: CredentialStore, channelLimit: Int,
        staleness: StalenessPolicy = StalenessPolicy(), logger: Logger, clock: any ServiceClock = SystemServiceClock()
    ) {
        self.staleness = staleness
        self.clock = clock
        self.pool = pool
        self.apns = apns
        self.credentials = credentials
        self.channelLimit = ChannelLimit(limit: channelLimit)
        self.logger = logger.named("registry")
    }

    var apps: AppStore { AppStore(pool: pool) }
    var games: GameStore { GameStore(pool: pool, clock: clock) }
    var channels: ChannelStore { ChannelStore(pool: pool) }

    // MARK: - Create

    /// Creates a channel at APNs for `app` and binds it to game `gameID`.
    /// - Parameter policy: the storage policy; the app's default when nil.
    /// - Throws: `RegistryError`: `.notFound` (game), `.channelLimitReached` (before asking
    ///   APNs), `.apnsRefused`/`.apnsUnavailable`, `.databaseUnavailable`.
    ///
    /// Idempotent: when the game already has a live channel of `app` with the same storage
    /// policy, that one is returned (``CreatedChannel/alreadyExisted``) unless `another` asks for
    /// one more. Either way the game's opt-out of the app's automatic channels is lifted.
    package func createChannel(
        gameID: String, app: AppRecord, policy: ChannelStoragePolicy? = nil, another: Bool = false
    ) async throws -> CreatedChannel {
        try await games.requireExisting(gameID)
        let mode: CreateMode = another ? .always : .unlessPolicyExists
        switch try await create(app: app, gameID: gameID, policy: policy ?? app.defaultStoragePolicy, mode: mode) {
        case .created(let created):
            return created
        case .existing(let listing):
            return CreatedChannel(listing: listing, limitWarning: nil, alreadyExisted: true)
        case .optedOut:
            throw RegistryError(.databaseUnavailable, "the channel was not created")
        }
    }

    /// The game's light channel for `app` (tier `light`: every update, but priority 10 only for
    /// kick-off, goals and full time; handed to devices whose user turned frequent updates off).
    /// One per game and app: a live one is returned (``CreatedChannel/alreadyExisted``);
    /// otherwise a channel of its own is created with the app's default storage policy, never
    /// the game's standard channel, and bound as `light` in the transaction that records it.
    /// Lifts the game's opt-out of the app's automatic channels, as `createChannel` does.
    /// - Throws: as `createChannel`.
    package func lightChannel(gameID: String, app: AppRecord) async throws -> CreatedChannel {
        try await games.requireExisting(gameID)
        switch try await create(app: app, gameID: gameID, policy: app.defaultStoragePolicy, mode: .light) {
        case .created(let created):
            return created
        case .existing(let listing):
            return CreatedChannel(listing: listing, limitWarning: nil, alreadyExisted: true)
        case .optedOut:
            throw RegistryError(.databaseUnavailable, "the channel was not created")
        }
    }

    /// Makes sure every app with automatic channels (and not paused) has a live channel bound to
    /// game `gameID`, creating the missing ones with each app's default storage policy. One
    /// app's failure does not stop the others; it is in the report.
    /// - Throws: `RegistryError.notFound` for an unknown game; database failures.
    package func ensureChannels(gameID: String) async throws -> EnsureReport {
        try await games.requireExisting(gameID)
        let candidates = try await apps.all().filter(\.autoChannels)
        var report = EnsureReport(gameID: gameID, results: [], warnings: [])
        for app in candidates {
            if let reason = app.pausedReason {
                report.results.append(.init(app: app, outcome: .skippedPaused(reason: reason)))
                continue
            }
            do {
                switch try await create(app: app, gameID: gameID, policy: app.defaultStoragePolicy, mode: .automatic) {
                case .created(let created):
                    if let warning = created.limitWarning { report.warnings.append(warning) }
                    report.results.append(.init(app: app, outcome: .created(created.listing)))
                    logger.info("channel created automatically", [
                        "game": gameID, "bundle_id": app.bundleID, "environment": app.environment.rawValue,
                        "channel_id": String(created.listing.channel.id), "apns_channel_id": created.listing.channel.apnsChannelID])
                case .existing(let listing):
                    report.results.append(.init(app: app, outcome: .existing(listing)))
                case .optedOut:
                    report.results.append(.init(app: app, outcome: .optedOut))
                }
            } catch let error as RegistryError where error.code != .databaseUnavailable {
                logger.warning("could not ensure a channel", [
                    "game": gameID, "bundle_id": app.bundleID, "environment": app.environment.rawValue, "error": error.message])
                report.results.append(.init(app: app, outcome: .failed(error)))
            }
        }
        return report
    }

    private enum CreateResult {
        case created(CreatedChannel)
        case existing(ChannelListing)
        case optedOut
    }

    /// When `create` makes a new channel.
    private enum CreateMode {
        /// Ensure: only if the game has no live channel of the app and has not opted out.
        case automatic
        /// `channels create`: unless a live one with the same storage policy exists.
        case unlessPolicyExists
        /// `channels create --another`: always.
        case always
        /// `games light-channel`: unless the game has a live light channel of the app; a new
        /// one is bound as tier `light`.
        case light
    }

    private func create(app: AppRecord, gameID: String, policy: ChannelStoragePolicy, mode: CreateMode) async throws -> CreateResult {
        let credentials = try await credentials.credentials(for: app)
        let operation = "creating a channel for \(app.bundleID) (\(app.environment))"
        var createdID: String?
        var warning: String?
        do {
            return try await pool.withTransaction { connection -> CreateResult in
                try await connection.execute("SELECT pg_advisory_xact_lock_shared(\(Self.bundleLockKey(app.bundleID)))")
                try await connection.execute("SELECT pg_advisory_xact_lock(\(Self.gameLockKey(appID: app.id, gameID: gameID)))")
                let existing = try await channels.liveChannels(gameID: gameID, appID: app.id, on: connection)
                switch mode {
                case .automatic:
                    if let first = existing.first, let listing = try await channels.find(id: first.id, on: connection) {
                        return .existing(listing)
                    }
                    // Read after the live channels: a delete that committed in between is seen
                    // by both reads, with its opt-out.
                    if try await channels.isOptedOut(gameID: gameID, appID: app.id, on: connection) { return .optedOut }
                case .unlessPolicyExists:
                    if let same = existing.first(where: { $0.storagePolicy == policy }),
                       let listing = try await channels.find(id: same.id, on: connection) {
                        try await channels.removeOptOut(gameID: gameID, appID: app.id, on: connection)
                        return .existing(listing)
                    }
                    try await channels.removeOptOut(gameID: gameID, appID: app.id, on: connection)
                case .always:
                    try await channels.removeOptOut(gameID: gameID, appID: app.id, on: connection)
                case .light:
                    if let light = try await channels.liveChannels(gameID: gameID, appID: app.id, tier: "light", on: connection).first,
                       let listing = try await channels.find(id: light.id, on: connection) {
                        try await channels.removeOptOut(gameID: gameID, appID: app.id, on: connection)
                        return .existing(listing)
                    }
                    try await channels.removeOptOut(gameID: gameID, appID: app.id, on: connection)
                }
                let count = try await channels.countAgainstLimit(appID: app.id, on: connection)
                switch channelLimit.verdict(forCreatingWith: count) {
                case .refused(let count, let limit):
                    throw RegistryError(
                        .channelLimitReached,
                        "\(app.bundleID) (\(app.environment)) has \(ChannelLimit.usage(count, of: limit)) channels: the limit is reached "
                            + "(APNs would answer CannotCreateChannelConfig). Delete channels of finished games or run "
                            + "`scorecast channels reconcile --fix`; the limit is SCORECAST_CHANNEL_LIMIT.")
                case .warning(let after, let limit):
                    warning = "\(app.bundleID) (\(app.environment)) now uses \(ChannelLimit.usage(after, of: limit)) of its channel limit"
                case .allowed:
                    break
                }
                let response: APNsResponse
                do throws(APNsClientError) {
                    response = try await apns.create(bundleID: app.bundleID, policy: policy, credentials: credentials)
                } catch {
                    throw RegistryError.unavailable(error, while: operation)
                }
                guard response.isSuccess, let channelID = response.channelID, !channelID.isEmpty else {
                    throw RegistryError.refused(response, while: operation)
                }
                createdID = channelID
                let record = try await channels.insert(
                    appID: app.id, apnsChannelID: channelID, policy: policy, gameID: gameID,
                    tier: mode == .light ? "light" : "standard", on: connection)
                try await ChannelSeed(staleness: staleness, clock: clock).seed(channelID: record.id, app: app, gameID: gameID, on: connection)
                guard let listing = try await channels.find(id: record.id, on: connection) else {
                    throw PostgresError(.queryFailed, "the new channel could not be read back")
                }
                return .created(CreatedChannel(listing: listing, limitWarning: warning))
            }
        } catch {
            guard let createdID else {
                if let error = error as? PostgresError { throw RegistryError.database(error, while: operation) }
                throw error
            }
            return try await recover(createdID: createdID, app: app, gameID: gameID, credentials: credentials,
                                     policy: policy, warning: warning, failure: error)
        }
    }

    /// APNs created `createdID` but the registry transaction failed: unless the write committed
    /// after all, delete the channel at APNs again, or record it as an orphan.
    private func recover(createdID: String, app: AppRecord, gameID: String, credentials: APNsCredentials,
                         policy: ChannelStoragePolicy, warning: String?, failure: any Error) async throws -> CreateResult {
        let reason = (failure as? PostgresError)?.message ?? "\(failure)"
        // A failed COMMIT may still have committed: then the channel is registered and fine.
        if let found = try? await channels.find(apnsChannelID: createdID).first(where: { $0.channel.appID == app.id }) {
            logger.notice("the registry write reported a failure but committed", ["channel": createdID])
            return .created(CreatedChannel(listing: found, limitWarning: warning))
        }
        logger.warning("registry write failed after APNs created a channel; deleting it at APNs again", [
            "bundle_id": app.bundleID, "channel": createdID, "error": reason])
        let cleanup: String
        do {
            let response = try await apns.delete(bundleID: app.bundleID, channelID: createdID, credentials: credentials)
            if response.isSuccess || response.reason == .channelNotRegistered {
                throw RegistryError(
                    .databaseUnavailable,
                    "the channel APNs created could not be recorded (\(reason)); it was deleted at APNs again, nothing leaked")
            }
            cleanup = "APNs refused to delete it: \(response.status) \(response.reason?.rawValue ?? "")"
        } catch let error as RegistryError {
            throw error
        } catch let error as APNsClientError {
            cleanup = "APNs did not answer its deletion: \(error.message)"
        }
        do {
            try await channels.recordOrphan(appID: app.id, apnsChannelID: createdID, reason: "registry write failed: \(reason); \(cleanup)")
            logger.error("recorded an orphan channel for reconciliation", ["bundle_id": app.bundleID, "channel": createdID])
            throw RegistryError(
                .databaseUnavailable,
                "the channel APNs created (\(createdID)) could not be recorded (\(reason)) and \(cleanup); it is recorded in "
                    + "channel_orphans and `scorecast channels reconcile --fix` deletes it")
        } catch let error as RegistryError {
            throw error
        } catch {
            logger.error("an orphan channel could not be recorded", ["bundle_id": app.bundleID, "channel": createdID])
            throw RegistryError(
                .databaseUnavailable,
                "the channel APNs created (\(createdID)) could not be recorded (\(reason)), \(cleanup), and recording it as an "
                    + "orphan failed too: `scorecast channels reconcile --app \(app.bundleID) --fix` finds and deletes it")
        }
    }

    // MARK: - Delete

    /// Deletes channel `id` at APNs, then marks it deleted. Safe to repeat: a deleted channel is
    /// left alone, and one APNs no longer knows is marked deleted too.
    ///
    /// When an admin deletes a channel of an app with automatic channels, its games opt out of
    /// that app's automatic channels in the same transaction, so `ensure` never recreates it.
    /// Logged at INFO with the games and the app.
    /// - Throws: `.notFound`, `.apnsRefused` (nothing changed), `.apnsUnavailable`.
    package func deleteChannel(id: Int64, reason: DeleteReason) async throws -> DeleteResult {
        guard let listing = try await channels.find(id: id) else {
            throw RegistryError(.notFound, "no channel \(id) (see `scorecast channels list`)")
        }
        if listing.channel.status == .deleted { return DeleteResult(outcome: .alreadyDeleted, optedOutGames: []) }
        guard let app = try await apps.find(id: listing.channel.appID) else {
            throw RegistryError(.notFound, "the app of channel \(id) no longer exists")
        }
        let credentials = try await credentials.credentials(for: app)
        let operation = "deleting channel \(id) of \(app.bundleID)"
        let response: APNsResponse
        do throws(APNsClientError) {
            response = try await apns.delete(bundleID: app.bundleID, channelID: listing.channel.apnsChannelID, credentials: credentials)
        } catch {
            throw RegistryError.unavailable(error, while: operation)
        }
        let outcome: DeleteOutcome
        if response.isSuccess {
            outcome = .deleted
        } else if response.reason == .channelNotRegistered {
            outcome = .unknownToAPNs
        } else {
            throw RegistryError.refused(response, while: operation)
        }
        let optedOut: [String]
        let games: [String]
        do {
            games = try await channels.games(ofChannel: id)
            optedOut = try await channels.markDeleted(id: id, optOutAppID: reason == .admin && app.autoChannels ? app.id : nil)
        } catch let error as PostgresError {
            throw RegistryError.database(error, while: "marking channel \(id) deleted (APNs has deleted it; run the command again)")
        }
        logger.info(reason == .retired ? "channel retired: its games are over" : "channel deleted by an admin", [
            "channel_id": String(id), "game": games.joined(separator: ","), "bundle_id": app.bundleID,
            "environment": app.environment.rawValue, "apns_channel_id": listing.channel.apnsChannelID,
            "opted_out": optedOut.isEmpty ? "none" : optedOut.joined(separator: ",")])
        return DeleteResult(outcome: outcome, optedOutGames: optedOut)
    }

    // MARK: - Helpers

    /// The advisory lock key of a bundle id's channel set (creates share it, reconcile takes it alone).
    static func bundleLockKey(_ bundleID: String) -> SQL {
        "hashtextextended(\("scorecast.channels.bundle:" + bundleID), 0)"
    }

    /// The advisory lock key of one app's channel for one game (ensure creates at most one).
    static func gameLockKey(appID: Int64, gameID: String) -> SQL {
        "hashtextextended(\("scorecast.channels.game:\(appID):" + gameID), 0)"
    }
}
