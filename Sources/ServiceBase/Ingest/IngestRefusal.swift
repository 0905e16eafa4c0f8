/// Why `POST /v1/events` refused a request: the `reason` label of
/// `scorecast_events_ingested_total{outcome="rejected"}` and the keys of `/v1/stats`' `refusals`.
package enum IngestRefusal: String, Sendable, CaseIterable, Codable {
    /// `401`: no key, an unknown or revoked key, or a bad signature.
    case unauthorized
    /// `413`: the body is over the limit.
    case tooLarge = "too_large"
    /// `415`: not `application/json`.
    case unsupportedMediaType = "unsupported_media_type"
    /// `400`: empty, or not JSON.
    case malformed
    /// `422`: fields that break the event schema.
    case invalid
    /// `422`: games that do not exist, with `SCORECAST_UNKNOWN_GAMES=refuse`.
    case unknownGame = "unknown_game"
    /// `429`: more new games than the feed key may create this hour.
    case gameQuota = "game_quota"
    /// `422`: an event whose Live Activity could not be sent.
    case unrenderable
}
