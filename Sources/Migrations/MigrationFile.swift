import Foundation
import ScorecastCrypto

/// One numbered, forward-only SQL file of `Sources/Migrations/Schema/` (`0001_initial.sql`).
public struct MigrationFile: Sendable, Equatable {
    /// The file name, which is also the migration's name in `schema_migrations`.
    public let name: String
    /// The number the name starts with; files apply in this order.
    public let number: Int
    /// The SQL text.
    public let sql: String
    /// Hex SHA-256 of the SQL's statements (``statements(of:)``): an applied file whose
    /// statements change is refused, while its comments may be corrected.
    public let checksum: String
    /// What migrators recorded before the checksum left comments out: the SHA-256 of the whole
    /// text, this one's and, for a file whose comments were corrected since, the former text's
    /// (``FormerChecksums``). A record holding one of them is accepted and left as it is, so a
    /// binary from before, which sums the whole text, still starts on the database after a rollback.
    public let formerChecksums: Set<String>

    /// Creates a migration from a file name and its text; names must look like `0001_words.sql`.
    public init(name: String, sql: String) throws(MigrationError) {
        guard name.hasSuffix(".sql"),
              let underscore = name.firstIndex(of: "_"),
              let number = Int(name[..<underscore]), number > 0,
              name[..<underscore].count == 4
        else { throw MigrationError.badFileName(name) }
        self.name = name
        self.number = number
        self.sql = sql
        self.checksum = SHA256.hexDigest(Array(Self.statements(of: sql).utf8))
        self.formerChecksums = Set([SHA256.hexDigest(Array(sql.utf8))] + [FormerChecksums.wholeText[name]].compactMap { $0 })
    }

    /// The text without its comment lines (those whose first non-blank characters are `--`),
    /// which is what the checksum covers. Comments after a statement on its line stay covered,
    /// and so would a line starting with `--` inside a multi-line string literal (none of ours).
    static func statements(of sql: String) -> String {
        sql.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("--") }
            .joined(separator: "\n")
    }
}

/// What the migrator refuses, with the file at fault.
public enum MigrationError: Error, Equatable, CustomStringConvertible {
    case badFileName(String)
    case duplicateNumber(Int, String, String)
    case changedAfterApply(String)
    case appliedButMissing(String)
    case schemaFolderNotFound([String])
    case failed(String, String)

    public var description: String {
        switch self {
        case .badFileName(let name):
            "migration file \(name) is not named NNNN_description.sql"
        case .duplicateNumber(let number, let first, let second):
            "migration number \(number) is used twice: \(first) and \(second)"
        case .changedAfterApply(let name):
            "migration \(name) was changed after it was applied (a statement, not only a comment); migrations are forward-only: restore it and add a new numbered file"
        case .appliedButMissing(let name):
            "migration \(name) is applied in the database but not among the schema files (is this binary older than the database?)"
        case .schemaFolderNotFound(let looked):
            "SCORECAST_SCHEMA_DIR names \(looked.joined(separator: ", ")), which holds no .sql file (unset it to use the migrations built into the binary)"
        case .failed(let name, let reason):
            "migration \(name) failed and was rolled back: \(reason)"
        }
    }
}

/// A migration recorded in `schema_migrations`.
public struct AppliedMigration: Sendable, Equatable {
    /// The file name.
    public let name: String
    /// The checksum it had when applied.
    public let checksum: String
    /// When it was applied.
    public let appliedAt: Date

    /// Creates a record.
    public init(name: String, checksum: String, appliedAt: Date) {
        self.name = name
        self.checksum = checksum
        self.appliedAt = appliedAt
    }
}

/// The decision of what to apply: pure, so its refusals are tested without a database.
public struct MigrationPlan: Sendable, Equatable {
    /// Files already applied, in order.
    public let applied: [MigrationFile]
    /// Files still to apply, in order.
    public let pending: [MigrationFile]

    /// Compares the files with what the database has applied; refuses changed or vanished files.
    public init(files: [MigrationFile], applied records: [AppliedMigration]) throws(MigrationError) {
        let ordered = files.sorted { $0.number < $1.number }
        for (previous, next) in zip(ordered, ordered.dropFirst()) where previous.number == next.number {
            throw .duplicateNumber(next.number, previous.name, next.name)
        }
        let byName = Dictionary(ordered.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for record in records {
            guard let file = byName[record.name] else { throw .appliedButMissing(record.name) }
            guard file.checksum == record.checksum || file.formerChecksums.contains(record.checksum) else {
                throw .changedAfterApply(record.name)
            }
        }
        let appliedNames = Set(records.map(\.name))
        self.applied = ordered.filter { appliedNames.contains($0.name) }
        self.pending = ordered.filter { !appliedNames.contains($0.name) }
    }

    /// Whether the database is fully migrated.
    public var isComplete: Bool { pending.isEmpty }
}
