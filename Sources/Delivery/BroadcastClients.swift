import APNs
import Registry

/// Where a worker's broadcasts go: the APNs client to use with a set of credentials.
///
/// APNs takes one team per connection, so a process serving apps of several teams or keys
/// keeps one client per signing key; a single `APNsClient` serves every credential it is
/// given (one team). Any type with this method conforms.
package protocol BroadcastClients: Sendable {
    /// The client that sends with `credentials`.
    func client(for credentials: APNsCredentials) throws(APNsClientError) -> APNsClient
}

extension APNsClient: BroadcastClients {
    /// This client, for every credential (a process with a single team).
    package func client(for credentials: APNsCredentials) throws(APNsClientError) -> APNsClient { self }
}

/// The process's clients, one per signing key (what `serve` uses).
extension APNsClientSet: BroadcastClients {}
