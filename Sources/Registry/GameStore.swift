import Clocks
import Foundation
import Postgres

/// Reads and adds games for the registry (the ingest path folds events into them).
package struct GameStore: Sendable {
    let pool: PostgresPool
    /// The time a game is added at.
    let clock: any ServiceClock

    /// Creates a store on `pool`, going by `clock`.
    package init(pool: PostgresPool, clock: any ServiceClock = SystemServiceClock()) {
        self.pool = pool
        self.clock = clock
    }

    /// Adds a game, created at the clock's time; `alreadyExists` when the id is taken.
    package func add(_ draft: GameDraft) async throws -> GameRecord {
        try draft.validate()
        let rows: [PostgresRow]
        do {
            rows = try await pool.query("""
                INSERT INTO games (
                    id, league, sport, home_team, away_team, starts_at,
                    home_code, away_code, home_primary_colour, home_secondary_colour, away_primary_colour, away_secondary_colour,
                    created_at)
                VALUES (
                    \(draft.id), \(draft.league), \(draft.sport), \(draft.homeTeam), \(draft.awayTeam), \(draft.startsAt as Date?),
                    \(draft.homeIdentity.code), \(draft.awayIdentity.code),
                    \(draft.homeIdentity.primaryColour), \(draft.homeIdentity.secondaryColour),
                    \(draft.awayIdentity.primaryColour), \(draft.awayIdentity.secondaryColour), \(clock.now()))
                ON CONFLICT (id) DO NOTHING
                RETURNING \(unsafeSQL: GameRecord.columns)
                """)
        } catch let error as PostgresError {
            throw RegistryError.database(error, while: "adding game \(draft.id)")
        }
        guard let row = rows.first else {
            throw RegistryError(.alreadyExists, "game \(draft.id) already exists (see `scorecast games show \(draft.id)`)")
        }
        return try GameRecord(row: row)
    }

    /// The game with this id, or nil.
    package func find(id: String) async throws -> GameRecord? {
        try await pool.query("SELECT \(unsafeSQL: GameRecord.columns) FROM games WHERE id = \(id)").first.map(GameRecord.init(row:))
    }

    /// Throws `invalidInput` for a malformed id and `notFound` unless game `id` exists.
    package func requireExisting(_ id: String) async throws {
        try GameDraft.checkID(id, option: "--game")
        guard try await find(id: id) != nil else {
            throw RegistryError(.notFound, "no game \(id) (add it with `scorecast games add`)")
        }
    }

    /// Games, optionally of one status, soonest start first (unscheduled last), at most `limit`.
    package func list(status: String? = nil, limit: Int = 1000) async throws -> [GameRecord] {
        try await pool.query("""
            SELECT \(unsafeSQL: GameRecord.columns) FROM games
            WHERE (\(status as String?)::text IS NULL OR status = \(status as String?))
            ORDER BY starts_at NULLS LAST, id
            LIMIT \(limit)
            """).map(GameRecord.init(row:))
    }
}
