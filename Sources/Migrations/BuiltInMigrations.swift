/// The migrations built into the binary, so `scorecast` migrates from any folder.
///
/// Each file of `Schema/` (this module's folder) is a SwiftPM resource embedded in code
/// (`.embedInCode` in Package.swift), which SwiftPM exposes as `PackageResources.<mangled name>`:
/// `0017_deliveries_claim_wait.sql` becomes `_017_deliveries_claim_wait_sql` (the leading digit
/// turns into `_`). SwiftPM offers no list of them, so this is it. Adding a migration: put
/// `NNNN_words.sql` in `Sources/Migrations/Schema/` and add its line below;
/// `SchemaFolderTests` fails while a file of the folder is missing here.
enum BuiltInMigrations {
    /// File name → bytes, in file-name order.
    static let files: [(name: String, bytes: [UInt8])] = [
        ("0001_initial.sql", PackageResources._001_initial_sql),
        ("0002_ingest.sql", PackageResources._002_ingest_sql),
        ("0003_delivery.sql", PackageResources._003_delivery_sql),
        ("0004_delivery_claimed_version.sql", PackageResources._004_delivery_claimed_version_sql),
        ("0005_poller.sql", PackageResources._005_poller_sql),
        ("0006_outbox_churn.sql", PackageResources._006_outbox_churn_sql),
        ("0007_alert_queue.sql", PackageResources._007_alert_queue_sql),
        ("0008_feed_game_bounds.sql", PackageResources._008_feed_game_bounds_sql),
        ("0009_channel_opt_outs.sql", PackageResources._009_channel_opt_outs_sql),
        ("0010_devices.sql", PackageResources._010_devices_sql),
        ("0012_rolling_budget.sql", PackageResources._012_rolling_budget_sql),
        ("0014_activity_budget.sql", PackageResources._014_activity_budget_sql),
        ("0015_deliveries_without_id_index.sql", PackageResources._015_deliveries_without_id_index_sql),
        ("0016_kickoff_chunks.sql", PackageResources._016_kickoff_chunks_sql),
        ("0017_deliveries_claim_wait.sql", PackageResources._017_deliveries_claim_wait_sql),
        ("0025_channel_last_shown.sql", PackageResources._025_channel_last_shown_sql),
        ("0030_stats_minute_refusals.sql", PackageResources._030_stats_minute_refusals_sql),
        ("0040_games_last_arrival.sql", PackageResources._040_games_last_arrival_sql),
        ("0045_sealed_signing_secrets.sql", PackageResources._045_sealed_signing_secrets_sql),
        ("0050_games_team_identity.sql", PackageResources._050_games_team_identity_sql),
        ("0055_channel_shown_payload.sql", PackageResources._055_channel_shown_payload_sql),
        ("0060_budget_ledger.sql", PackageResources._060_budget_ledger_sql),
        ("0075_channel_shown_text.sql", PackageResources._075_channel_shown_text_sql),
        ("0076_send_logs_without_foreign_keys.sql", PackageResources._076_send_logs_without_foreign_keys_sql),
        ("0077_channel_alert_alone.sql", PackageResources._077_channel_alert_alone_sql),
        ("0078_budget_ledger_by_kind.sql", PackageResources._078_budget_ledger_by_kind_sql),
        ("0079_outbox_one_order.sql", PackageResources._079_outbox_one_order_sql),
        ("0080_outbox_without_foreign_key.sql", PackageResources._080_outbox_without_foreign_key_sql),
    ]
}
