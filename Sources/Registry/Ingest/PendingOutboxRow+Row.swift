import APNsCore
import DeliveryEngine
import Foundation
import JSON
import Postgres
import ScorecastCore

extension PendingOutboxRow {
    /// Decodes an `outbox` row selected with `channel_id, version, payload, priority, alerts,
    /// event_ids, first_ingested_at, coalesced, due_at, attempts` and a boolean `leased`.
    ///
    /// A row's backoff (`not_before`) is not read: a newer update resets it (``OutboxMerge``).
    init(row: PostgresRow) throws {
        let bytes = [UInt8](try row.decode("payload", as: Data.self))
        let payload = try LiveActivityPayload(jsonValue: try JSONParser().parse(bytes))
        let priorityValue: Int = try row.decode("priority")
        guard let priority = BroadcastPriority(rawValue: priorityValue) else {
            throw PostgresError(.decodingFailed, "outbox.priority holds an unknown value", column: "priority")
        }
        let dueAt: Date = try row.decode("due_at")
        let attempts: Int = try row.decode("attempts")
        let entry = OutboxEntry(
            payload: payload, body: bytes, priority: priority,
            alerts: try QueuedAlert.queue(from: try JSONParser().parse(try row.decode("alerts", as: PostgresJSON.self).bytes)),
            eventIDs: try row.decode("event_ids", as: [Int64].self).map(String.init),
            coalesced: try row.decode("coalesced"), dueAt: dueAt,
            attempts: attempts, enqueuedAt: try row.decode("first_ingested_at"))
        self.init(version: try row.decode("version"), entry: entry, isLeased: try row.decode("leased"))
    }
}
