import APNs

/// Where a worker's broadcasts go: the APNs client to use with a set of credentials.
///
/// APNs takes one team per connection, so a process serving apps of several teams or keys
/// keeps one client per signing key; a single `APNsClient` serves every credential it is
/// given (one team). Any type with this method conforms.
public protocol BroadcastClients: Sendable {
    /// The client that sends with `credentials`.
    func client(for credentials: APNsCredentials) throws(APNsClientError) -> APNsClient
}

extension APNsClient: BroadcastClients {
    /// This client, for every credential (a process with a single team).
    public func client(for credentials: APNsCredentials) throws(APNsClientError) -> APNsClient { self }
}

/// One client per signing key: `serve`'s clients, shared by the registry and the workers.
extension APNsClientSet: BroadcastClients {}
