/// A channel `ChannelRegistry.createChannel` made.
package struct CreatedChannel: Sendable, Hashable {
    /// The new channel, as listed.
    package var listing: ChannelListing
    /// Set when the app now uses 90 % or more of its channel limit.
    package var limitWarning: String?
    /// True when no channel was created because the game already had a live one for the app
    /// with the same storage policy (`listing` is that one).
    package var alreadyExisted = false
}

/// What `ChannelRegistry.ensureChannels(gameID:)` did for each app with automatic channels.
package struct EnsureReport: Sendable, Equatable {
    /// One app's result.
    package enum Outcome: Sendable, Equatable {
        /// A channel was created.
        case created(ChannelListing)
        /// The app already had a live channel for the game.
        case existing(ChannelListing)
        /// The app's sends are paused (its credentials were refused): nothing was attempted.
        case skippedPaused(reason: String)
        /// An admin deleted this game's channel of the app: the game opted out, nothing is created.
        case optedOut
        /// Creating failed; nothing was left behind (see the message).
        case failed(RegistryError)
    }

    /// One app and what happened for it.
    package struct AppResult: Sendable, Equatable {
        /// The app.
        package var app: AppRecord
        /// What happened.
        package var outcome: Outcome
    }

    /// The game.
    package var gameID: String
    /// One result per app with automatic channels, in bundle id order.
    package var results: [AppResult]
    /// Limit warnings raised while creating.
    package var warnings: [String]

    /// The channels created.
    package var created: [ChannelListing] {
        results.compactMap { if case .created(let listing) = $0.outcome { listing } else { nil } }
    }

    /// The apps whose channel could not be created, with why.
    package var failures: [(app: AppRecord, error: RegistryError)] {
        results.compactMap { if case .failed(let error) = $0.outcome { ($0.app, error) } else { nil } }
    }
}

/// What `ChannelRegistry.deleteChannel(id:reason:)` did, and which games opted out of the
/// app's automatic channels because of it.
package struct DeleteResult: Sendable, Hashable {
    /// What happened at APNs and in the registry.
    package var outcome: DeleteOutcome
    /// Games that will get no automatic channel of this app again (an admin deleted it).
    package var optedOutGames: [String]

    /// A result.
    package init(outcome: DeleteOutcome, optedOutGames: [String]) {
        self.outcome = outcome
        self.optedOutGames = optedOutGames
    }
}

/// Why a channel is deleted.
package enum DeleteReason: Sendable, Hashable {
    /// An admin asked (`channels delete`): for an app with automatic channels, its games opt out.
    case admin
    /// Its games are over (the poller's retirement).
    case retired
}

/// What a deletion did at APNs and in the registry.
package enum DeleteOutcome: Sendable, Hashable {
    /// APNs deleted it; the registry marked it deleted.
    case deleted
    /// APNs did not know it (ChannelNotRegistered); the registry marked it deleted.
    case unknownToAPNs
    /// It was already deleted: nothing was sent to APNs.
    case alreadyDeleted
}

/// What `ChannelRegistry.reconcile(app:fix:)` found, and with `fix` what it changed.
package struct ReconcileReport: Sendable, Hashable {
    /// The app compared.
    package var app: AppRecord
    /// How many channels APNs listed for its bundle id.
    package var apnsChannelCount: Int
    /// How many of its registry channels are live.
    package var registryLiveCount: Int
    /// The comparison.
    package var diff: ReconcileDiff
    /// Whether fixes were applied.
    package var fixed: Bool
    /// Orphans deleted at APNs (or already gone there).
    package var deletedOrphans: [String]
    /// Orphans whose deletion APNs refused or did not answer, with the message; they are
    /// recorded in `channel_orphans` so they count against the limit and are retried.
    package var failedOrphans: [FailedOrphan]
    /// Registry ids marked gone.
    package var markedGone: [Int64]
    /// Recorded orphans forgotten (deleted now, or no longer listed by APNs).
    package var clearedOrphanRecords: [String]

    /// An orphan that could not be deleted.
    package struct FailedOrphan: Sendable, Hashable {
        /// Its APNs id.
        package var apnsChannelID: String
        /// Why.
        package var message: String
    }

    /// Whether registry and APNs agreed (before any fix).
    package var isClean: Bool { diff.isClean }
}
