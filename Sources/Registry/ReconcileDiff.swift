/// The comparison at the heart of `channels reconcile`: APNs' list of an app's channels against
/// the registry. Pure, so every case is a table test.
///
/// - An **orphan** is a channel APNs has that no registry row holds as live (`active` or
///   `retiring`): a create whose registry write failed, a channel made by hand, or one whose
///   deletion the registry recorded but APNs still lists. `--fix` deletes it at APNs.
/// - A **gone** channel is live in the registry but unknown to APNs (deleted behind our back, or
///   expired): `--fix` marks it `gone` so nothing is sent to it.
/// - A recorded orphan (`channel_orphans`) that APNs no longer lists is **settled**: its row can
///   be removed.
package struct ReconcileDiff: Sendable, Hashable {
    /// A channel as the registry knows it, for the comparison.
    package struct RegistryChannel: Sendable, Hashable {
        /// The registry id.
        package var id: Int64
        /// The APNs channel id.
        package var apnsChannelID: String
        /// The registry status.
        package var status: ChannelRecord.Status
        /// Whether the channel belongs to the app being reconciled (rather than to the same
        /// bundle in the other environment served by the same APNs host).
        package var ownedByApp: Bool

        /// Creates one.
        package init(id: Int64, apnsChannelID: String, status: ChannelRecord.Status, ownedByApp: Bool = true) {
            self.id = id
            self.apnsChannelID = apnsChannelID
            self.status = status
            self.ownedByApp = ownedByApp
        }
    }

    /// An APNs channel no registry row holds as live.
    package struct Orphan: Sendable, Hashable {
        /// The APNs channel id.
        package var apnsChannelID: String
        /// The registry row that has this id but not live (`deleted`/`gone`), if any.
        package var registryStatus: ChannelRecord.Status?
        /// Whether `channel_orphans` records it (a create whose registry write and cleanup failed).
        package var recorded: Bool
    }

    /// APNs channels no registry row holds as live, in APNs' order.
    package var orphans: [Orphan]
    /// Registry channels of the app that are live but that APNs does not list, by registry id.
    package var gone: [RegistryChannel]
    /// Recorded orphans APNs no longer lists (nothing to delete; the record can go).
    package var settledOrphanRecords: [String]

    /// Whether registry and APNs agree.
    package var isClean: Bool { orphans.isEmpty && gone.isEmpty && settledOrphanRecords.isEmpty }

    /// Compares APNs' list with the registry.
    /// - Parameters:
    ///   - apnsChannelIDs: what APNs lists for the app's bundle id.
    ///   - registry: the registry's channels of that bundle id (any status).
    ///   - recordedOrphans: the app's `channel_orphans` ids.
    package init(apnsChannelIDs: [String], registry: [RegistryChannel], recordedOrphans: [String]) {
        let live = Set(registry.filter { $0.status.isLive }.map(\.apnsChannelID))
        var notLive: [String: ChannelRecord.Status] = [:]
        for channel in registry where !channel.status.isLive { notLive[channel.apnsChannelID] = channel.status }
        let recorded = Set(recordedOrphans)
        var seen = Set<String>()
        var orphans: [Orphan] = []
        for id in apnsChannelIDs where seen.insert(id).inserted && !live.contains(id) {
            orphans.append(Orphan(apnsChannelID: id, registryStatus: notLive[id], recorded: recorded.contains(id)))
        }
        self.orphans = orphans
        self.gone = registry.filter { $0.ownedByApp && $0.status.isLive && !seen.contains($0.apnsChannelID) }
        var settled = Set<String>()
        self.settledOrphanRecords = recordedOrphans.filter { !seen.contains($0) && settled.insert($0).inserted }
    }
}

extension ChannelRecord.Status {
    /// Whether the channel exists at APNs as far as the registry knows (`active`, `retiring`).
    package var isLive: Bool { self == .active || self == .retiring }
}
