import Foundation

/// The numbered SQL migrations: the ones embedded in the binary (``BuiltInMigrations``, the
/// files of `Sources/Migrations/Schema/`), or the `.sql` files of `SCORECAST_SCHEMA_DIR` when that
/// is set (for trying a migration without rebuilding; the application reads that setting in
/// `SchemaFolder+Setting.swift`). So `scorecast` migrates from any folder.
public enum SchemaFolder {
    /// The migrations built into the binary, checksummed as the files they came from.
    public static func embedded() throws(MigrationError) -> [MigrationFile] {
        try BuiltInMigrations.files.map { file throws(MigrationError) in try migration(named: file.name, bytes: file.bytes) }
    }

    /// Reads every `.sql` file of `folder` as a migration, checksummed.
    public static func read(_ folder: URL) throws -> [MigrationFile] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        return try names.map { name in
            try migration(named: name, bytes: [UInt8](Data(contentsOf: folder.appendingPathComponent(name))))
        }
    }

    /// One file as a migration (embedded or read, the same text and so the same sums).
    private static func migration(named name: String, bytes: [UInt8]) throws(MigrationError) -> MigrationFile {
        try MigrationFile(name: name, sql: String(decoding: bytes, as: UTF8.self))
    }
}
