import Foundation
import ScorecastLogging
import Postgres
import Synchronization

/// Leadership among poller instances: a Postgres session advisory lock held on a connection of
/// its own.
///
/// `pg_try_advisory_lock` on a key fixed per schema (`scorecast.poller:<schema>`) makes exactly
/// one instance the leader. The lock lives as long as the session: if the leader's process dies
/// or its connection is cut, Postgres releases it at once and the next follower to try takes it.
/// The leader confirms every few seconds that its session still holds the lock, and stops
/// leading when it does not.
package final class LeaderLock: Sendable {
    private enum State {
        /// No connection open.
        case idle
        /// A connection that tried and did not get the lock (kept for the next try).
        case following(PostgresConnection)
        /// The connection holding the lock.
        case leading(PostgresConnection)
    }

    /// The key, computed by the server: one leader per schema, so deployments (and tests) that
    /// share a database in different schemas each have their own.
    static let key: SQL = "hashtextextended('scorecast.poller:' || current_schema(), 0)"

    private let configuration: PostgresConfiguration
    private let logger: Logger
    private let state = Mutex<State>(.idle)

    /// Creates the lock for the database `configuration` names (its search path picks the schema).
    package init(configuration: PostgresConfiguration, logger: Logger) {
        var configuration = configuration
        configuration.applicationName = "scorecast-poller-leader"
        self.configuration = configuration
        self.logger = logger
    }

    /// Whether this instance held the lock when last checked.
    package var isHeld: Bool {
        state.withLock { if case .leading = $0 { true } else { false } }
    }

    /// The server process of the lock's connection, if one is open.
    package var backendPID: Int32? {
        state.withLock { state in
            switch state {
            case .idle: nil
            case .following(let connection), .leading(let connection): connection.backendPID
            }
        }
    }

    /// Tries to take the lock (connecting first if needed); returns whether this instance holds
    /// it now. Never throws: a database that cannot be reached means "not leader".
    package func acquire() async -> Bool {
        let current = state.withLock { $0 }
        switch current {
        case .leading:
            return await confirm()
        case .following(let connection):
            return await tryLock(on: connection)
        case .idle:
            let connection: PostgresConnection
            do {
                connection = try await PostgresConnection.connect(configuration: configuration, logger: logger)
            } catch {
                logger.debug("cannot connect to try the poller lock", ["error": "\(error)"])
                return false
            }
            return await tryLock(on: connection)
        }
    }

    /// Checks that the session still holds the lock; on any failure (connection cut, lock gone)
    /// the connection is closed and this instance is no longer leader.
    package func confirm() async -> Bool {
        guard case .leading(let connection) = state.withLock({ $0 }) else { return false }
        do {
            let rows = try await connection.query("""
                SELECT EXISTS (
                    SELECT 1 FROM pg_locks
                    WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid() AND objsubid = 1
                      AND classid = ((\(Self.key) >> 32) & 4294967295)::oid
                      AND objid = (\(Self.key) & 4294967295)::oid
                ) AS held
                """)
            if try rows.first?.decode("held", as: Bool.self) == true { return true }
            logger.warning("the poller lock's session no longer holds the lock")
        } catch {
            logger.warning("the poller lock's connection failed", ["error": "\(error)"])
        }
        await drop(connection)
        return false
    }

    /// Gives the lock up (so another instance takes over at once) and closes the connection.
    package func release() async {
        let current = state.withLock { state -> State in
            defer { state = .idle }
            return state
        }
        switch current {
        case .idle:
            return
        case .following(let connection):
            await connection.close()
        case .leading(let connection):
            _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.key))")
            await connection.close()
        }
    }

    /// The server process holding the poller lock of the schema `pool` uses, if any instance does.
    package static func holder(on pool: PostgresPool) async throws -> Int32? {
        let rows = try await pool.query("""
            SELECT pid FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND objsubid = 1
              AND classid = ((\(key) >> 32) & 4294967295)::oid
              AND objid = (\(key) & 4294967295)::oid
            """)
        return try rows.first?.decode("pid", as: Int32.self)
    }

    private func tryLock(on connection: PostgresConnection) async -> Bool {
        do {
            let rows = try await connection.query("SELECT pg_try_advisory_lock(\(Self.key)) AS locked")
            let locked = try rows.first?.decode("locked", as: Bool.self) ?? false
            state.withLock { $0 = locked ? .leading(connection) : .following(connection) }
            return locked
        } catch {
            logger.debug("trying the poller lock failed", ["error": "\(error)"])
            await drop(connection)
            return false
        }
    }

    private func drop(_ connection: PostgresConnection) async {
        state.withLock { $0 = .idle }
        await connection.close()
    }
}
