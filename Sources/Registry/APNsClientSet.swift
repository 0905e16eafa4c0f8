import APNs
import APNsCore
import Clocks
import ScorecastCore
import ScorecastLogging
import Synchronization

/// One APNs client per signing key (team and key id), made on first use.
///
/// APNs allows one team per connection, and a connection whose provider token changes sooner
/// than 20 minutes after the last one is answered `429 TooManyProviderTokenUpdates`
/// (apns.md §6). Apps of different teams or keys therefore never share a connection: each
/// signing key gets a client (a connection pool) of its own.
package final class APNsClientSet: ChannelManaging {
    /// The settings every client is made with.
    package let configuration: APNsClientConfiguration
    private let logger: Logger
    private let connectionObserver: (any APNsConnectionObserver)?
    private let clock: any ServiceClock
    private let clients = Mutex<[String: APNsClient]>([:])

    /// Checks `configuration`; no client (and no thread) exists until one is asked for.
    /// - Parameters:
    ///   - connectionObserver: told of every connection each client opens or closes.
    ///   - clock: the service's clock, every client's deadlines and tokens go by.
    package init(configuration: APNsClientConfiguration, logger: Logger,
                connectionObserver: (any APNsConnectionObserver)? = nil,
                clock: any ServiceClock = SystemServiceClock()) throws(APNsClientError) {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        self.connectionObserver = connectionObserver
        self.clock = clock
    }

    /// The client for `credentials`' team and key.
    package func client(for credentials: APNsCredentials) throws(APNsClientError) -> APNsClient {
        let key = credentials.teamID + "/" + credentials.keyID
        return try clients.withLock { (clients: inout [String: APNsClient]) throws(APNsClientError) -> APNsClient in
            if let client = clients[key] { return client }
            let client = try APNsClient(configuration: configuration, logger: logger.with(["team": credentials.teamID]),
                                        connectionObserver: connectionObserver, clock: clock)
            clients[key] = client
            return client
        }
    }

    /// The connections every client holds open to `host` now.
    package func openConnections(to host: APNsHost) -> Int {
        clients.withLock { $0.values.reduce(0) { $0 + $1.openConnections(to: host) } }
    }

    /// How many clients exist (one per signing key used so far).
    package var count: Int { clients.withLock { $0.count } }

    /// Shuts every client down.
    package func shutdown() async {
        let all = clients.withLock { clients in
            defer { clients.removeAll() }
            return Array(clients.values)
        }
        for client in all { await client.shutdown() }
    }

    /// Creates a channel on the key's client.
    package func create(bundleID: String, policy: ChannelStoragePolicy, credentials: APNsCredentials) async throws(APNsClientError) -> APNsResponse {
        try await client(for: credentials).createChannel(bundleID: bundleID, policy: policy, credentials: credentials)
    }

    /// Deletes a channel on the key's client.
    package func delete(bundleID: String, channelID: String, credentials: APNsCredentials) async throws(APNsClientError) -> APNsResponse {
        try await client(for: credentials).deleteChannel(bundleID: bundleID, channelID: channelID, credentials: credentials)
    }

    /// Lists channels on the key's client.
    package func list(bundleID: String, credentials: APNsCredentials) async throws(APNsClientError) -> APNsResponse {
        try await client(for: credentials).listChannels(bundleID: bundleID, credentials: credentials)
    }
}
