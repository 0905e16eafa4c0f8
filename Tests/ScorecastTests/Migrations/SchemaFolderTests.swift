import Foundation
import Migrations
import Testing
import TestSupport

/// The binary carries every migration file, byte for byte, and `SCORECAST_SCHEMA_DIR` replaces them.
@Suite struct SchemaFolderTests {
    @Test func everyMigrationFileIsBuiltInByteForByte() throws {
        let onDisk = try SchemaFolder.read(ScorecastProcess.schemaFolder)
        let embedded = try SchemaFolder.embedded()
        #expect(!onDisk.isEmpty)
        #expect(embedded.map(\.name) == onDisk.map(\.name), "a file of Sources/Migrations/Schema/ is missing from BuiltInMigrations.files")
        #expect(embedded == onDisk)
    }

    @Test func schemaDirOverridesTheEmbeddedMigrationsAndAnEmptyOneIsNamed() throws {
        let folder = try TemporaryFolder("schema-dir")
        defer { folder.remove() }
        #expect(try SchemaFolder.migrations(environment: [:]) == SchemaFolder.embedded())
        #expect(throws: MigrationError.schemaFolderNotFound([folder.url.path])) {
            try SchemaFolder.migrations(environment: ["SCORECAST_SCHEMA_DIR": folder.url.path])
        }
        try Data("SELECT 1;\n".utf8).write(to: folder.url.appendingPathComponent("0001_one.sql"))
        #expect(try SchemaFolder.migrations(environment: ["SCORECAST_SCHEMA_DIR": folder.url.path]).map(\.name) == ["0001_one.sql"])
    }
}
