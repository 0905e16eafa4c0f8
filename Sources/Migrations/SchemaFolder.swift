import ScorecastCrypto
import Foundation

/// The numbered SQL migrations: the ones embedded in the binary (``EmbeddedSchema``, generated
/// from `Schema/` by `Deploy/embed.py`), or the `.sql` files of `SCORECAST_SCHEMA_DIR` when that
/// is set (for trying a migration without rebuilding; the application reads that setting in
/// `SchemaFolder+Setting.swift`). So `scorecast` migrates from any folder.
public enum SchemaFolder {
    /// The migrations built into the binary, checksummed exactly as the files they came from.
    public static func embedded() throws(MigrationError) -> [MigrationFile] {
        try EmbeddedSchema.files.map { file throws(MigrationError) in
            try MigrationFile(name: file.name, sql: file.text, checksum: SHA256.hexDigest(Array(file.text.utf8)))
        }
    }

    /// Reads every `.sql` file of `folder` as a migration, checksummed.
    public static func read(_ folder: URL) throws -> [MigrationFile] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        return try names.map { name in
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
            return try MigrationFile(name: name, sql: String(decoding: bytes, as: UTF8.self), checksum: SHA256.hexDigest(bytes))
        }
    }
}
