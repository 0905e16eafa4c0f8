import APNs
import APNsCore
import ScorecastCore

/// The three APNs channel-management calls the registry makes. `APNsClient` is the one real
/// implementation; tests may wrap it to interfere between calls (e.g. inject a fault after a
/// create succeeded).
package protocol ChannelManaging: Sendable {
    /// `POST /1/apps/<bundle>/channels`: the new id is in `APNsResponse.channelID`.
    func create(bundleID: String, policy: ChannelStoragePolicy, credentials: APNsCredentials) async throws(APNsClientError) -> APNsResponse
    /// `DELETE /1/apps/<bundle>/channels` with `apns-channel-id`.
    func delete(bundleID: String, channelID: String, credentials: APNsCredentials) async throws(APNsClientError) -> APNsResponse
    /// `GET /1/apps/<bundle>/all-channels`: the ids are in `APNsResponse.channelIDs`.
    func list(bundleID: String, credentials: APNsCredentials) async throws(APNsClientError) -> APNsResponse
}

extension APNsClient: ChannelManaging {
    /// Creates a channel (see `createChannel`).
    package func create(bundleID: String, policy: ChannelStoragePolicy, credentials: APNsCredentials) async throws(APNsClientError) -> APNsResponse {
        try await createChannel(bundleID: bundleID, policy: policy, credentials: credentials)
    }

    /// Deletes a channel (see `deleteChannel`).
    package func delete(bundleID: String, channelID: String, credentials: APNsCredentials) async throws(APNsClientError) -> APNsResponse {
        try await deleteChannel(bundleID: bundleID, channelID: channelID, credentials: credentials)
    }

    /// Lists the app's channels (see `listChannels`).
    package func list(bundleID: String, credentials: APNsCredentials) async throws(APNsClientError) -> APNsResponse {
        try await listChannels(bundleID: bundleID, credentials: credentials)
    }
}
