import Foundation
import Postgres

/// What `scorecast stats --watch` says about the database between rounds: while it is away (a
/// restart of Postgres or of the server's embedded cluster) the watch keeps trying and says so;
/// when it answers again, it says how long it was gone. Pure: the caller does the reading and
/// the printing, and passes the time in.
struct StatsWatch {
    /// When the current outage began, if the last round failed.
    private(set) var awaySince: Date?

    /// Whether `error` means the database is away for now (worth another round), rather than
    /// wrong (an unmigrated schema, a bad query: the watch ends with the error).
    static func isDatabaseAway(_ error: any Error) -> Bool {
        guard let error = error as? PostgresError else { return false }
        switch error.code {
        case .connectionFailed, .connectionClosed, .timeout:
            return true
        case .queryFailed:
            // Class 08 (connection exception), and 57P01–57P03 (the server shutting down or starting).
            return error.sqlState.map { $0.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains($0) } ?? false
        default:
            return false
        }
    }

    /// A round failed at `now` because the database is away: the line to print.
    mutating func failed(_ error: PostgresError, at now: Date) -> String {
        let since = awaySince ?? now
        awaySince = since
        let waited = Int(now.timeIntervalSince(since).rounded())
        return "scorecast stats: the database is unavailable (\(error.message)); reconnecting every "
            + "\(StatsCommands.watchInterval.components.seconds) s" + (waited > 0 ? ", away for \(waited) s" : "") + " (Ctrl-C to stop)"
    }

    /// A round succeeded at `now`: the line to print when it ends an outage.
    mutating func succeeded(at now: Date) -> String? {
        guard let since = awaySince else { return nil }
        awaySince = nil
        return "scorecast stats: reconnected to the database after \(Int(now.timeIntervalSince(since).rounded())) s"
    }
}
