/// How a channel keeps messages for offline devices; fixed at creation (apns.md §2).
enum MessageStoragePolicy: Int, Sendable, Codable {
    /// No Message Stored: `apns-expiration` must be 0.
    case noMessageStored = 0
    /// Most Recent Message Stored: kept up to 8 hours.
    case mostRecentMessageStored = 1

    /// The name shown by the admin API.
    var name: String {
        switch self {
        case .noMessageStored: "NoMessageStored"
        case .mostRecentMessageStored: "MostRecentMessageStored"
        }
    }
}

/// One channel as APNs keeps it.
struct ChannelRecord: Sendable, Equatable, Codable {
    let id: String
    let bundleID: String
    let policy: MessageStoragePolicy
    let createdAt: Double
}

/// The channels of one environment, per app. A pure value; the simulator guards it with a lock.
struct ChannelStore: Sendable {
    private var channels: [String: ChannelRecord] = [:]
    private var countsByApp: [String: Int] = [:]

    /// An empty store.
    init() {}

    /// A store holding `records` (a saved state read back).
    init(records: [ChannelRecord]) {
        for record in records {
            channels[record.id] = record
            countsByApp[record.bundleID, default: 0] += 1
        }
    }

    /// Why a channel could not be created.
    enum CreateFailure: Error, Equatable {
        /// The app already has `limit` channels (`CannotCreateChannelConfig`).
        case limitReached
    }

    /// Creates a channel with `id` unless the app already has `limit` channels.
    mutating func create(id: String, bundleID: String, policy: MessageStoragePolicy, limit: Int, now: Double) -> Result<ChannelRecord, CreateFailure> {
        guard countsByApp[bundleID, default: 0] < limit else { return .failure(.limitReached) }
        let record = ChannelRecord(id: id, bundleID: bundleID, policy: policy, createdAt: now)
        channels[id] = record
        countsByApp[bundleID, default: 0] += 1
        return .success(record)
    }

    /// The channel `id` of app `bundleID`; a channel of another app is not found (ids are per app).
    func channel(id: String, bundleID: String) -> ChannelRecord? {
        guard let record = channels[id], record.bundleID == bundleID else { return nil }
        return record
    }

    /// Deletes channel `id` of app `bundleID`; `false` when there is no such channel.
    mutating func delete(id: String, bundleID: String) -> Bool {
        guard channel(id: id, bundleID: bundleID) != nil else { return false }
        channels[id] = nil
        countsByApp[bundleID, default: 1] -= 1
        return true
    }

    /// The app's channel ids, oldest first.
    func ids(bundleID: String) -> [String] {
        channels.values.filter { $0.bundleID == bundleID }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map(\.id)
    }

    /// Every channel, oldest first.
    var all: [ChannelRecord] {
        channels.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// How many channels the app has.
    func count(bundleID: String) -> Int { countsByApp[bundleID, default: 0] }

    /// Forgets every channel.
    mutating func removeAll() {
        channels.removeAll()
        countsByApp.removeAll()
    }
}
