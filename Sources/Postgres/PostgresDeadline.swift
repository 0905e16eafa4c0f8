/// How long this task may wait on the database, on the client's side: for a pooled connection,
/// and for the server's answer to each statement. A stalled server (its processes stopped, a
/// network that drops packets) never answers, and its own `statement_timeout` cannot fire, so
/// only the client can end the wait.
///
/// A pool's connections wait at most `PostgresConfiguration.responseTimeout` per statement
/// and the pool's `leaseTimeout` for a connection; `within` narrows both for the calls in its
/// body (an operator's probe that must answer in 2 s), `lifted` removes the per-statement limit
/// (a migration that may wait minutes for a lock).
///
/// ```swift
/// let ready = try await PostgresDeadline.within(.milliseconds(1500)) { try await pool.query("SELECT 1") }
/// ```
public enum PostgresDeadline: Sendable {
    /// No limit of this task's own.
    case none
    /// Every call fails once this instant passes.
    case at(ContinuousClock.Instant)
    /// Statements wait for the server's answer without a client-side limit.
    case lifted

    @TaskLocal static var current: PostgresDeadline = .none

    /// Runs `body` with every database wait ending at the latest `limit` from now (or earlier,
    /// when an enclosing deadline ends sooner).
    public static func within<T>(
        _ limit: Duration, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        var instant = ContinuousClock.now + limit
        if case .at(let enclosing) = current { instant = min(instant, enclosing) }
        return try await $current.withValue(.at(instant), operation: body, isolation: isolation)
    }

    /// Runs `body` with no client-side limit on statements (pool waits keep theirs).
    public static func lifted<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        try await $current.withValue(.lifted, operation: body, isolation: isolation)
    }

    /// The calling task's deadline, to carry it to work done on its behalf in another task
    /// (a request whose statements run in a shared transaction): apply it there with
    /// ``applying(_:isolation:_:)``.
    public static var ofCurrentTask: PostgresDeadline { current }

    /// Runs `body` under `deadline`, one taken with ``ofCurrentTask`` (or ``earliest(_:)`` of
    /// several), in place of the calling task's own.
    public static func applying<T>(
        _ deadline: PostgresDeadline, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        try await $current.withValue(deadline, operation: body, isolation: isolation)
    }

    /// The deadline of work done for several tasks at once: the earliest instant among them
    /// (the work must end before the first of them gives up); `none` when none has an instant.
    public static func earliest(_ deadlines: some Sequence<PostgresDeadline>) -> PostgresDeadline {
        let instants = deadlines.compactMap { deadline -> ContinuousClock.Instant? in
            if case .at(let instant) = deadline { return instant }
            return nil
        }
        return instants.min().map { .at($0) } ?? .none
    }

    /// How long a wait that is otherwise limited to `limit` may take now: the smaller of the two
    /// (never negative), `limit` when this task has no deadline, and no limit when lifted and
    /// `liftable`.
    static func remaining(within limit: Duration?, liftable: Bool, now: ContinuousClock.Instant = .now) -> Duration? {
        switch current {
        case .none:
            return limit
        case .lifted:
            return liftable ? nil : limit
        case .at(let instant):
            let left = max(.zero, now.duration(to: instant))
            return limit.map { min($0, left) } ?? left
        }
    }
}
