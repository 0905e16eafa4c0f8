import ScorecastCrypto
import Foundation

/// The numbered SQL migrations: the ones embedded in the binary (``EmbeddedSchema``, generated
/// from `Schema/` by `Deploy/embed.py`), or the `.sql` files of `SCORECAST_SCHEMA_DIR` when that
/// is set (for trying a migration without rebuilding). So `scorecast` migrates from any folder.
public enum SchemaFolder {
    /// The migrations to apply: `SCORECAST_SCHEMA_DIR`'s files when set, else the embedded ones.
    public static func migrations(environment: [String: String]) throws -> [MigrationFile] {
        if let explicit = environment[Setting.schemaDirectory.name], !explicit.isEmpty {
            let folder = URL(fileURLWithPath: explicit)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            guard names.contains(where: { $0.hasSuffix(".sql") }) else { throw MigrationError.schemaFolderNotFound([folder.path]) }
            return try read(folder)
        }
        return try embedded()
    }

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
