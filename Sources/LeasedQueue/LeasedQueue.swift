import Clocks
import Foundation
import Postgres

/// A table of work that workers take under a lease: the one claim, lease rule, heartbeat,
/// release and rescue that every queue of the service shares (the broadcast outbox, the token
/// path's updates, the push-to-starts). Each method returns a statement or a fragment of one;
/// the stores run them, so the queues differ only in what they pick and what they read back.
///
/// A lease is an owner (`lease_owner`) and an expiry (`lease_expires_at`). It holds from the
/// claim until just before its expiry; at the expiry it has run out, and the row is free for
/// any claim (its holder is presumed dead) — the rule `ChannelOutbox.Pending.isClaimable`
/// states in Swift. So a worker that sleeps until a lease's expiry finds the row free when it
/// wakes.
/// Every time is the caller's clock, bound as a parameter: expiries are computed in Swift and
/// compared with the same clock's readings, never with Postgres' `now()`.
///
/// A claim locks the rows it picks and skips those another transaction holds (`SKIP LOCKED`),
/// so any number of workers claim side by side without waiting on each other or taking the
/// same row.
package struct LeasedQueue: Sendable {
    /// The table.
    package let table: String
    /// The alias every statement and fragment gives the table.
    package let alias: String
    /// The columns that name a row.
    package let key: [String]

    /// A queue over `table`, named `alias` in its statements, whose rows are named by `key`.
    package init(table: String, alias: String, key: [String]) {
        precondition(!key.isEmpty, "a leased queue's rows need a key")
        self.table = table
        self.alias = alias
        self.key = key
    }

    // MARK: - The lease rule

    /// Rows free for a claim at `now`: never leased, or their lease has run out.
    package func isFree(at now: Date) -> SQL {
        "(\(column("lease_owner")) IS NULL OR \(column("lease_expires_at")) <= \(now)::timestamptz)"
    }

    /// Rows leased by someone whose lease has run out at `now`.
    package func hasRunOut(at now: Date) -> SQL {
        "(\(column("lease_owner")) IS NOT NULL AND \(column("lease_expires_at")) <= \(now)::timestamptz)"
    }

    /// Rows whose lease holds at `now` (the opposite of ``isFree(at:)``).
    package func isHeld(at now: Date) -> SQL {
        "(\(column("lease_owner")) IS NOT NULL AND \(column("lease_expires_at")) > \(now)::timestamptz)"
    }

    /// Rows leased to `owner`, whether or not the lease has run out: the fence of every write
    /// that follows a send. A lease that ran out still lets its owner finish while no one has
    /// taken it over; once another claim took the row, its owner's writes change nothing.
    package func isHeld(by owner: String) -> SQL {
        "\(column("lease_owner")) = \(owner)"
    }

    /// The `SET` assignments that lease a row to `owner` from `now` for `lease`.
    package func leasing(to owner: String, for lease: Duration, at now: Date) -> SQL {
        "lease_owner = \(owner), lease_expires_at = \(now.adding(lease))::timestamptz"
    }

    /// The `SET` assignments that give a row's lease back.
    package static let releasing: SQL = "lease_owner = NULL, lease_expires_at = NULL"

    // MARK: - Claim

    /// What a claim takes: the rows of the table (aliased, with `joins`) that meet `condition`,
    /// in `order`, at most `limit` of them.
    package struct Pick: Sendable {
        /// The columns the claim reads back from the pick besides the key (alias-qualified),
        /// e.g. columns of joined tables; empty for none.
        package var columns: SQL
        /// Joins after `FROM table alias`; empty for none.
        package var joins: SQL
        /// Which rows may be claimed.
        package var condition: SQL
        /// The order they are taken in, if any.
        package var order: SQL?
        /// At most this many; `nil` for every row that meets the condition.
        package var limit: Int?
        /// Whether rows another transaction holds are skipped (a worker's claim) rather than
        /// waited for (a claim of rows the caller knows it holds).
        package var skipsLocked: Bool

        /// A pick.
        package init(columns: SQL = "", joins: SQL = "", condition: SQL, order: SQL? = nil, limit: Int? = nil, skipsLocked: Bool = true) {
            self.columns = columns
            self.joins = joins
            self.condition = condition
            self.order = order
            self.limit = limit
            self.skipsLocked = skipsLocked
        }
    }

    /// The claim, as two common table expressions to follow `WITH`: `picked` (the rows `pick`
    /// selects, locked, with its columns) and `claimed` (those rows leased to `owner` from
    /// `now` for `lease`, with `setting`'s further assignments, returning `returning`). The
    /// caller's `SELECT` reads `claimed` (and `picked`) back.
    package func claim(_ pick: Pick, owner: String, lease: Duration, at now: Date, setting: SQL? = nil, returning: SQL) -> SQL {
        var picked: SQL = "picked AS (\n    SELECT \(keyList(of: alias))"
        if !pick.columns.text.isEmpty { picked.append(", " + pick.columns) }
        picked.append("\n    FROM \(unsafeSQL: table) \(unsafeSQL: alias) " + pick.joins)
        picked.append("\n    WHERE " + pick.condition)
        if let order = pick.order { picked.append("\n    ORDER BY " + order) }
        if let limit = pick.limit { picked.append("\n    LIMIT \(max(1, limit))") }
        picked.append("\n    FOR UPDATE OF \(unsafeSQL: alias)\(unsafeSQL: pick.skipsLocked ? " SKIP LOCKED" : "")\n)")
        var assignments = leasing(to: owner, for: lease, at: now)
        if let setting { assignments.append(", " + setting) }
        return picked + """
            , claimed AS (
                UPDATE \(unsafeSQL: table) \(unsafeSQL: alias) SET \(assignments)
                FROM picked WHERE \(matching("picked"))
                RETURNING \(returning)
            )
            """
    }

    // MARK: - Heartbeat and release

    /// Extends `owner`'s leases on the rows named `keys` (one key column) to `now` + `lease`:
    /// the heartbeat of a long send. It changes no row another owner holds.
    package func extend<Key: PostgresArrayEncodable>(_ keys: [Key], owner: String, lease: Duration, at now: Date) -> SQL {
        precondition(key.count == 1, "rows named by one column only")
        return """
        UPDATE \(unsafeSQL: table) \(unsafeSQL: alias) SET lease_expires_at = \(now.adding(lease))::timestamptz
        WHERE \(column(key[0])) = ANY(\(keys)) AND \(isHeld(by: owner))
        """
    }

    /// Gives back `owner`'s leases on the rows named `keys` (one key column), with `setting`'s
    /// further assignments; changes no row another owner holds.
    package func release<Key: PostgresArrayEncodable>(_ keys: [Key], owner: String, setting: SQL? = nil) -> SQL {
        precondition(key.count == 1, "rows named by one column only")
        return """
        UPDATE \(unsafeSQL: table) \(unsafeSQL: alias) SET \(assignments(Self.releasing, setting))
        WHERE \(column(key[0])) = ANY(\(keys)) AND \(isHeld(by: owner))
        """
    }

    /// Gives back every lease held by an owner whose name starts with `ownerPrefix` (a
    /// process's workers at shutdown), with `setting`'s further assignments.
    package func releaseAll(ownerPrefix: String, setting: SQL? = nil) -> SQL {
        """
        UPDATE \(unsafeSQL: table) \(unsafeSQL: alias) SET \(assignments(Self.releasing, setting))
        WHERE \(column("lease_owner")) IS NOT NULL AND starts_with(\(column("lease_owner")), \(ownerPrefix))
        """
    }

    /// The rescue of a dead worker's rows, as two common table expressions to follow `WITH`:
    /// `expired` (up to `limit` rows whose lease ran out by `now`, oldest expiry first, skipping
    /// rows another transaction holds) and `rescued` (their leases given back, returning
    /// `returning`). A rescued row's old holder can no longer write it: its fence is the owner.
    package func rescue(limit: Int, at now: Date, setting: SQL? = nil, returning: SQL) -> SQL {
        """
        expired AS (
            SELECT \(keyList(of: alias)) FROM \(unsafeSQL: table) \(unsafeSQL: alias)
            WHERE \(hasRunOut(at: now))
            ORDER BY \(column("lease_expires_at"))
            LIMIT \(max(1, limit))
            FOR UPDATE OF \(unsafeSQL: alias) SKIP LOCKED
        ), rescued AS (
            UPDATE \(unsafeSQL: table) \(unsafeSQL: alias) SET \(assignments(Self.releasing, setting))
            FROM expired WHERE \(matching("expired"))
            RETURNING \(returning)
        )
        """
    }

    // MARK: - Text

    /// `alias.name`.
    package func column(_ name: String) -> SQL {
        .unsafeSQL("\(alias).\(name)")
    }

    private func keyList(of prefix: String) -> SQL {
        .unsafeSQL(key.map { "\(prefix).\($0)" }.joined(separator: ", "))
    }

    /// The table's rows matching the rows of `other` by key.
    private func matching(_ other: String) -> SQL {
        .unsafeSQL(key.map { "\(alias).\($0) = \(other).\($0)" }.joined(separator: " AND "))
    }

    private func assignments(_ first: SQL, _ more: SQL?) -> SQL {
        guard let more else { return first }
        return first + ", " + more
    }
}
