import Foundation
import Migrations

extension SchemaFolder {
    /// The migrations to apply: `SCORECAST_SCHEMA_DIR`'s files when set, else the embedded ones.
    package static func migrations(environment: [String: String]) throws -> [MigrationFile] {
        if let explicit = environment[Setting.schemaDirectory.name], !explicit.isEmpty {
            let folder = URL(fileURLWithPath: explicit)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            guard names.contains(where: { $0.hasSuffix(".sql") }) else { throw MigrationError.schemaFolderNotFound([folder.path]) }
            return try read(folder)
        }
        return try embedded()
    }
}
