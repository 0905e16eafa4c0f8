/// Migrators once checksummed a migration's whole text, comments included, and databases keep
/// those sums in `schema_migrations`. A file whose text is unchanged since still yields its
/// recorded sum (``MigrationFile/formerChecksums``); a file whose comments were corrected after
/// that change no longer can, so its former whole-text sum is listed here, once, to accept
/// those databases (their rows keep those sums, which a binary from before still matches).
enum FormerChecksums {
    /// File name → hex SHA-256 of the file's whole text before its comments were corrected.
    static let wholeText: [String: String] = [
        "0008_feed_game_bounds.sql": "80234cf87d1fb985332551bb723578a26ab71736b994850312535bfe8ef53043",
        "0015_deliveries_without_id_index.sql": "0ea0b2185d0b8672d3a220f67ecbe38a40614e3e7ef8552cc8c5569b64153f4c",
        "0016_kickoff_chunks.sql": "f88e48630221cc113f13e85e4556d08de911cdc3c609b34bdb3dce5cb00c8f50",
        "0017_deliveries_claim_wait.sql": "da21b7361eee22c5b0201f1f8e9545478ec1ce7e652e1d239f4386627a990c6c",
    ]
}
