import Clocks
import APNsCore
import Foundation
import ScorecastLogging

/// The APNs client: channel management, broadcasts and device pushes over HTTP/2 and TLS.
///
/// One client keeps a small pool of connections to each of its two hosts, driven by one libcurl
/// multi handle on a thread of its own; every method is `async` and safe to call from many
/// tasks at once. Idle connections are kept for hours and watched with TCP keepalive
/// (apns.md §9).
/// Each request carries the team's shared provider token; when APNs calls it expired
/// (`403 ExpiredProviderToken`) the token is renewed once and the request sent again.
///
/// Call ``shutdown()`` when done: it fails what is still pending and stops the thread.
public final class APNsClient: Sendable {
    /// The settings the client was made with.
    public let configuration: APNsClientConfiguration
    /// The provider-token cache (shared with other clients when one was passed in).
    public let tokens: TokenCache
    let transport: HTTP2Transport
    /// The kernel's name of the thread each client runs libcurl on (within its 15 bytes), as
    /// `top -H`, `ps -L` and perf show it.
    public static let threadName = "apns-curl"
    let builder: APNsRequestBuilder
    let logger: Logger

    /// Creates a client and starts its HTTP/2 loop thread.
    /// - Parameters:
    ///   - tokens: a cache to share with other clients; by default a new one using
    ///     `configuration.tokenRenewalAge` and `clock`.
    ///   - connectionObserver: told each time a connection opens or closes (for a gauge).
    ///   - clock: the service's clock (the system's by default): the transport's deadlines and
    ///     ages, and the default token cache's tokens.
    /// - Throws: `APNsClientError.invalidConfiguration` naming the bad setting.
    public init(configuration: APNsClientConfiguration, logger: Logger = Logger(label: "apns"),
                tokens: TokenCache? = nil, connectionObserver: (any APNsConnectionObserver)? = nil,
                clock: any ServiceClock = SystemServiceClock()) throws(APNsClientError) {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        if let tokens {
            self.tokens = tokens
        } else {
            self.tokens = try TokenCache(renewalAge: configuration.tokenRenewalAge, logger: logger, clock: clock)
        }
        self.builder = APNsRequestBuilder(sendEndpoint: configuration.sendEndpoint,
                                          managementEndpoint: configuration.managementEndpoint)
        let sendEndpoint = configuration.sendEndpoint
        let openConnections = OpenConnections { endpoint, delta in
            connectionObserver?.connectionsChanged(host: endpoint == sendEndpoint ? .send : .management, delta: delta)
        }
        self.transport = try HTTP2Transport(options: configuration.transportOptions(clock: clock), openConnections: openConnections, logger: logger)
        if case .url = configuration.proxy {
            logger.info("APNs connections go through a proxy", ["proxy": configuration.proxy.description])
        }
    }

    /// Creates a broadcast channel (`201`, its id in ``APNsResponse/channelID``).
    /// - Throws: `APNsClientError`; `.invalidResponse` if APNs answers 2xx without `apns-channel-id`.
    public func createChannel(bundleID: String, policy: ChannelStoragePolicy, credentials: APNsCredentials,
                              requestID: UUID? = nil) async throws(APNsClientError) -> APNsResponse {
        let response = try await perform(builder.createChannel(bundleID: bundleID, policy: policy, requestID: requestID),
                                         credentials: credentials, operation: "create-channel")
        if response.isSuccess && (response.channelID ?? "").isEmpty {
            throw APNsClientError(.invalidResponse, "channel creation answered \(response.status) without an apns-channel-id header")
        }
        return response
    }

    /// Reads a channel's configuration (``APNsResponse/channelConfiguration``).
    public func readChannel(bundleID: String, channelID: String, credentials: APNsCredentials,
                            requestID: UUID? = nil) async throws(APNsClientError) -> APNsResponse {
        try await perform(builder.readChannel(bundleID: bundleID, channelID: channelID, requestID: requestID),
                          credentials: credentials, operation: "read-channel")
    }

    /// Deletes a channel (`204`); irreversible.
    public func deleteChannel(bundleID: String, channelID: String, credentials: APNsCredentials,
                              requestID: UUID? = nil) async throws(APNsClientError) -> APNsResponse {
        try await perform(builder.deleteChannel(bundleID: bundleID, channelID: channelID, requestID: requestID),
                          credentials: credentials, operation: "delete-channel")
    }

    /// Lists the app's channels in this environment (``APNsResponse/channelIDs``).
    public func listChannels(bundleID: String, credentials: APNsCredentials,
                             requestID: UUID? = nil) async throws(APNsClientError) -> APNsResponse {
        try await perform(builder.listChannels(bundleID: bundleID, requestID: requestID),
                          credentials: credentials, operation: "list-channels")
    }

    /// Sends a broadcast to a channel (`200` with ``APNsResponse/uniqueID``).
    public func sendBroadcast(_ broadcast: Broadcast, credentials: APNsCredentials) async throws(APNsClientError) -> APNsResponse {
        try await perform(builder.broadcast(broadcast), credentials: credentials, operation: "broadcast")
    }

    /// Sends many broadcasts signed with one set of credentials, handed to the connections at
    /// once, and returns every answer, in order, when all are in.
    ///
    /// Each broadcast is treated as ``sendBroadcast(_:credentials:)`` treats one (its own
    /// deadline, resends after GOAWAY, the token renewed and the broadcast sent again once on
    /// `403 ExpiredProviderToken`), and each result is its own: a broadcast that fails
    /// validation, times out or is refused fails alone. Cancelling the awaiting task fails the
    /// broadcasts not answered yet with `.cancelled`; ``shutdown()`` fails them with `.shutdown`.
    /// What it saves over one task per broadcast: the hand-over between the caller's task and
    /// the client's thread happens once per batch instead of once per broadcast each way.
    public func sendBroadcasts(_ broadcasts: [Broadcast], credentials: APNsCredentials) async -> [Result<APNsResponse, APNsClientError>] {
        let requests = broadcasts.map { broadcast in
            Result { () throws(APNsClientError) in try builder.broadcast(broadcast) }
        }
        return await performAll(requests, credentials: credentials, operation: "broadcast")
    }

    /// Sends a push to one device token (push-to-start and per-device updates).
    public func sendToDevice(_ push: DevicePush, credentials: APNsCredentials) async throws(APNsClientError) -> APNsResponse {
        try await perform(builder.devicePush(push), credentials: credentials, operation: "device")
    }

    /// Sends many device pushes signed with one set of credentials, as
    /// ``sendBroadcasts(_:credentials:)`` sends broadcasts: each push treated as
    /// ``sendToDevice(_:credentials:)`` treats one, every answer its own, in order, when all are in.
    public func sendToDevices(_ pushes: [DevicePush], credentials: APNsCredentials) async -> [Result<APNsResponse, APNsClientError>] {
        let requests = pushes.map { push in
            Result { () throws(APNsClientError) in try builder.devicePush(push) }
        }
        return await performAll(requests, credentials: credentials, operation: "device")
    }

    /// The connections open to `host` now: libcurl's own count (see `OpenConnections`), at most
    /// `maxConnectionsPerHost` once connected.
    public func openConnections(to host: APNsHost) -> Int {
        transport.openConnections.count(to: host == .send ? configuration.sendEndpoint : configuration.managementEndpoint)
    }

    /// Fails every pending request with `.shutdown`, closes the connections and stops the
    /// HTTP/2 loop thread. Later calls fail with `.shutdown`.
    public func shutdown() async {
        await transport.shutdown()
    }
}
