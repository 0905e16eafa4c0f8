import Foundation
import Postgres

/// One column of the batch-completion statement's input: its name, the Postgres type its
/// values travel as, and how it is read from a ``DeliveryCompletion``.
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
    let values: @Sendable ([DeliveryCompletion]) -> SQL

    /// A column whose value for each completion is `read(completion)` (`nil` binds NULL).
    static func column<Value: PostgresArrayEncodable & PostgresEncodable>(
        _ name: String, _ sqlType: String, readAs: String? = nil,
        _ read: @escaping @Sendable (DeliveryCompletion) -> Value?
    ) -> CompletionColumn {
        CompletionColumn(name: name, sqlType: sqlType, readAs: readAs, values: { "\($0.map(read))" })
    }

    /// A column holding a list of event ids per completion, sent as the text of a bigint array
    /// (`{1,2,3}`) and read back as `bigint[]`.
    static func eventIDs(_ name: String, _ read: @escaping @Sendable (DeliveryCompletion) -> [Int64]?) -> CompletionColumn {
        column(name, "text", readAs: "bigint[]") { completion in
            read(completion).map { "{" + $0.map(String.init).joined(separator: ",") + "}" }
        }
    }

    /// Every column, in the order the statement lists them. `c_` columns describe the
    /// completion and its claim, `d_` the `deliveries` row to append, `b_` the budget ledger entry.
    static let all: [CompletionColumn] = [
        column("channel_id", "bigint") { $0.channelID },
        column("claimed_version", "bigint") { $0.claimedVersion },
        column("app_id", "bigint") { $0.appID },
        column("action", "text") { $0.action.name },
        column("delay", "float8") { completion -> Double? in
            if case .retry(let delay, _) = completion.action { return max(0, delay) }
            return nil
        },
        column("error", "text") { completion -> String? in
            if case .retry(_, let error) = completion.action { return error }
            return nil
        },
        column("pause_reason", "text") { completion -> String? in
            if case .pauseApp(let reason) = completion.action { return reason }
            return nil
        },
        eventIDs("claimed_events") { $0.claimedEventIDs },
        column("claimed_coalesced", "int8") { $0.claimedCoalesced },
        column("claimed_at", "timestamptz") { $0.claimedAt },
        column("sent_ts", "int8") { $0.sentTimestamp },
        column("sent_shown", "int8") { $0.sentShown?.fingerprint },
        column("sent_alert", "text") { $0.sentAlertKey },
        column("shown_payload", "text") { $0.acceptedBody.map { String(decoding: $0, as: UTF8.self) } },
        column("shown_alert", "bool") { $0.acceptedBody == nil ? nil : $0.acceptedBodyAlerts },
        eventIDs("d_event_ids") { $0.delivery?.eventIDs },
        column("d_version", "bigint") { $0.delivery?.outboxVersion },
        column("d_requested", "int8") { $0.delivery.map { Int($0.requestedPriority.rawValue) } },
        column("d_priority", "int8") { $0.delivery.map { Int($0.priority.rawValue) } },
        column("d_downgraded", "bool") { $0.delivery?.downgraded },
        column("d_coalesced", "int8") { $0.delivery?.coalesced },
        column("d_attempt", "int8") { $0.delivery?.attempt },
        column("d_outcome", "text") { $0.delivery?.outcome.rawValue },
        column("d_status", "int8") { $0.delivery?.statusCode },
        column("d_reason", "text") { $0.delivery?.reason },
        column("d_request_id", "text") { $0.delivery?.apnsRequestID },
        column("d_unique_id", "text") { $0.delivery?.apnsUniqueID },
        column("d_latency", "float8") { $0.delivery?.apnsLatencyMilliseconds },
        column("d_ingest", "float8") { $0.delivery?.ingestToSendMilliseconds },
        column("d_claim_wait", "float8") { $0.delivery?.ingestToClaimMilliseconds },
        column("b_kind", "text") { $0.budgetEntry?.kind },
        column("b_at", "timestamptz") { $0.budgetEntry?.at },
        column("b_limit_after", "int8") { completion -> Int? in
            if case .throttled(let throttle)? = completion.budgetEntry { return throttle.limitAfter }
            return nil
        },
        column("b_barred_until", "timestamptz") { completion -> Date? in
            if case .throttled(let throttle)? = completion.budgetEntry { return throttle.barredUntil }
            return nil
        },
    ]

    /// `SELECT <columns> FROM unnest($1::<type>[], …) AS u(<names>)`: one row per completion,
    /// every column read as its ``readAs`` type, built from ``all``.
    static func rows(of completions: [DeliveryCompletion]) -> SQL {
        let selected = all.map { column in column.readAs.map { "u.\(column.name)::\($0) AS \(column.name)" } ?? "u.\(column.name)" }
        var sql = SQL.unsafeSQL("SELECT \(selected.joined(separator: ", ")) FROM unnest(")
        for (index, column) in all.enumerated() {
            if index > 0 { sql.append(", ") }
            sql.append(column.values(completions))
            sql.append(.unsafeSQL("::\(column.sqlType)[]"))
        }
        sql.append(.unsafeSQL(") AS u(\(all.map(\.name).joined(separator: ", ")))"))
        return sql
    }
}

extension DeliveryCompletion.RowAction {
    /// The action's name in the completion statement (the `action` column).
    var name: String {
        switch self {
        case .finish: "finish"
        case .retry: "retry"
        case .cancelChannel: "cancel"
        case .pauseApp: "pause"
        case .release: "release"
        }
    }
}
