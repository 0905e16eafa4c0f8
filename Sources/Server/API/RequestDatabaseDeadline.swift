import HTTPServer
import Postgres

/// How long one HTTP request may wait on the database in all (`SCORECAST_DATABASE_REQUEST_TIMEOUT_MS`):
/// a pooled connection and every answer, whatever the statement timeout of the long work behind
/// the API. A stalled database (its processes stopped, a network that drops packets) then costs a
/// request this long, not the statement timeout: a feed or an app with a timeout of its own gets
/// a `503` to retry on instead of timing out into the stall.
///
/// Every request route runs under it. A route answers database failures with its own `503`;
/// one that lets a `PostgresError` of an unavailable database escape gets a `503` here, and
/// every `503` leaves with a `Retry-After`.
package struct RequestDatabaseDeadline: Sendable {
    /// The longest wait.
    package let limit: Duration

    /// The `Retry-After` of a `503` that has none: the client may try again this soon.
    static let retryAfterSeconds = 1

    /// Creates the deadline.
    package init(limit: Duration) {
        self.limit = limit
    }

    /// The middleware to `use` on the router.
    package var middleware: Middleware {
        Middleware { request, next in
            do {
                return try await PostgresDeadline.within(limit) { try await next(request) }
            } catch let error as PostgresError where error.meansUnavailable {
                throw Self.withRetryAfter(Problem.serviceUnavailable("the database did not answer in time; retry later"))
            } catch let problem as Problem where problem.status == .serviceUnavailable {
                throw Self.withRetryAfter(problem)
            }
        }
    }

    /// `problem` with a `Retry-After`, keeping one it has.
    static func withRetryAfter(_ problem: Problem) -> Problem {
        guard problem.headers["Retry-After"] == nil else { return problem }
        var problem = problem
        problem.headers["Retry-After"] = String(retryAfterSeconds)
        return problem
    }
}
