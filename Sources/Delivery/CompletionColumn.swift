import DeliveryEngine
import Foundation
import Postgres

/// One column of the batch-completion statement's input: its name, the Postgres type its
/// values travel as, and how it is read from a ``CompletionWrite``.
///
/// ``all`` is the only list of them: the statement's `unnest(...)` arguments, its
/// `AS u(...)` aliases and the select list are all generated from it, so a column cannot be
/// added in one place and forgotten in another, nor two of them swapped by position.
struct CompletionColumn: Sendable {
    /// The column's name in the statement (`u.<name>`).
    let name: String
    /// The element type the values are bound as (the argument is `$n::<type>[]`).
    let sqlType: String
    /// The type the statement reads the column as, when it differs from ``sqlType`` (an array
    /// of arrays travels as the text of each inner array: Postgres arrays cannot be ragged).
    let readAs: String?
    /// The column's values for a batch, bound as one array parameter.
    let values: @Sendable ([CompletionWrite]) -> SQL

    /// A column whose value for each completion is `read(completion)` (`nil` binds NULL).
    static func column<Value: PostgresArrayEncodable & PostgresEncodable>(
        _ name: String, _ sqlType: String, readAs: String? = nil,
        _ read: @escaping @Sendable (CompletionWrite) -> Value?
    ) -> CompletionColumn {
        CompletionColumn(name: name, sqlType: sqlType, readAs: readAs, values: { "\($0.map(read))" })
    }

    /// A column holding a list of event ids per completion, sent as the text of a bigint array
    /// (`{1,2,3}`) and read back as `bigint[]`.
    static func eventIDs(_ name: String, _ read: @escaping @Sendable (CompletionWrite) -> [Int64]?) -> CompletionColumn {
        column(name, "text", readAs: "bigint[]") { write in
            read(write).map { "{" + $0.map(String.init).joined(separator: ",") + "}" }
        }
    }

    /// Every column, in the order the statement lists them: the fence, the settled row (`keep`
    /// false: deleted), what the channel and app become, then `d_` the `deliveries` row to
    /// append and `b_` the budget ledger entry.
    static let all: [CompletionColumn] = [
        column("channel_id", "bigint") { $0.completion.channelID },
        column("expected_version", "bigint") { $0.expectedVersion },
        column("app_id", "bigint") { $0.completion.appID },
        column("keep", "bool") { $0.row != nil },
        column("alerts", "text", readAs: "jsonb") { $0.row.map { QueuedAlert.encodedQueue($0.alerts) } },
        column("alerting", "bool") { $0.row?.alerting },
        column("priority", "int8") { $0.row.map { Int($0.priority.rawValue) } },
        column("due_at", "timestamptz") { $0.row?.dueAt },
        column("not_before", "timestamptz") { $0.row?.notBefore },
        column("attempts", "int8") { $0.row?.attempts },
        column("last_error", "text") { $0.row?.lastError },
        eventIDs("event_ids") { $0.row?.eventIDs },
        column("coalesced", "int8") { $0.row?.coalesced },
        column("first_ingested_at", "timestamptz") { $0.row?.firstIngestedAt },
        column("sent_ts", "int8") { $0.completion.sentTimestamp },
        column("sent_at", "timestamptz") { $0.sentAt },
        column("sent_shown", "int8") { $0.completion.sentShown?.fingerprint },
        column("shown_payload", "text") { $0.completion.acceptedBody.map { String(decoding: $0, as: UTF8.self) } },
        column("shown_at", "timestamptz") { $0.completion.acceptedBody == nil ? nil : $0.sentAt },
        column("shown_alert", "text") { $0.completion.acceptedAlert.map { String(decoding: $0, as: UTF8.self) } },
        column("alert_at", "timestamptz") { $0.completion.acceptedAlert == nil ? nil : $0.sentAt },
        column("retire", "bool") { $0.completion.action == .cancelChannel },
        column("pause_reason", "text") { write -> String? in
            if case .pauseApp(let reason) = write.completion.action { return reason }
            return nil
        },
        eventIDs("d_event_ids") { $0.completion.delivery?.eventIDs },
        column("d_version", "bigint") { $0.completion.delivery?.outboxVersion },
        column("d_requested", "int8") { $0.completion.delivery.map { Int($0.requestedPriority.rawValue) } },
        column("d_priority", "int8") { $0.completion.delivery.map { Int($0.priority.rawValue) } },
        column("d_downgraded", "bool") { $0.completion.delivery?.downgraded },
        column("d_coalesced", "int8") { $0.completion.delivery?.coalesced },
        column("d_attempt", "int8") { $0.completion.delivery?.attempt },
        column("d_outcome", "text") { $0.completion.delivery?.outcome.rawValue },
        column("d_status", "int8") { $0.completion.delivery?.statusCode },
        column("d_reason", "text") { $0.completion.delivery?.reason },
        column("d_request_id", "text") { $0.completion.delivery?.apnsRequestID },
        column("d_unique_id", "text") { $0.completion.delivery?.apnsUniqueID },
        column("d_latency", "float8") { $0.completion.delivery?.apnsLatencyMilliseconds },
        column("d_ingest", "float8") { $0.completion.delivery?.ingestToSendMilliseconds },
        column("d_claim_wait", "float8") { $0.completion.delivery?.ingestToClaimMilliseconds },
        column("d_at", "timestamptz") { $0.completion.delivery == nil ? nil : $0.completedAt },
        column("b_kind", "text") { $0.completion.budgetEntry?.kind },
        column("b_at", "timestamptz") { $0.completion.budgetEntry?.at },
        column("b_limit_after", "int8") { write -> Int? in
            if case .throttled(let throttle)? = write.completion.budgetEntry { return throttle.limitAfter }
            return nil
        },
        column("b_barred_until", "timestamptz") { write -> Date? in
            if case .throttled(let throttle)? = write.completion.budgetEntry { return throttle.barredUntil }
            return nil
        },
    ]

    /// `SELECT <columns> FROM unnest($1::<type>[], …) AS u(<names>)`: one row per completion,
    /// every column read as its ``readAs`` type, built from ``all``.
    static func rows(of writes: [CompletionWrite]) -> SQL {
        let selected = all.map { column in column.readAs.map { "u.\(column.name)::\($0) AS \(column.name)" } ?? "u.\(column.name)" }
        var sql = SQL.unsafeSQL("SELECT \(selected.joined(separator: ", ")) FROM unnest(")
        for (index, column) in all.enumerated() {
            if index > 0 { sql.append(", ") }
            sql.append(column.values(writes))
            sql.append(.unsafeSQL("::\(column.sqlType)[]"))
        }
        sql.append(.unsafeSQL(") AS u(\(all.map(\.name).joined(separator: ", ")))"))
        return sql
    }
}
