import Foundation
import Migrations
import Testing
import TestSupport
@testable import Scorecast

/// The files the binary carries inside itself are the ones in the repository, byte for byte.
@Suite struct EmbeddedFilesTests {
    @Test func theEmbeddedMigrationsAreSchemaByteForByte() throws {
        let onDisk = try SchemaFolder.read(ScorecastProcess.packageRoot.appendingPathComponent("Schema"))
        let embedded = try SchemaFolder.embedded()
        #expect(embedded.map(\.name) == onDisk.map(\.name), "Schema/ changed: run `python3 Deploy/embed.py`")
        #expect(embedded.map(\.checksum) == onDisk.map(\.checksum), "Schema/ changed: run `python3 Deploy/embed.py`")
        #expect(embedded == onDisk)
    }

    @Test func theEmbeddedDashboardIsItsAssetsByteForByte() throws {
        let folder = ScorecastProcess.packageRoot.appendingPathComponent("Sources/Scorecast/Dashboard/Assets")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { name in [".html", ".css", ".js"].contains { name.hasSuffix($0) } }.sorted()
        #expect(EmbeddedDashboard.files.map(\.name) == names, "Dashboard/Assets changed: run `python3 Deploy/embed.py`")
        for (name, text) in EmbeddedDashboard.files {
            let onDisk = try Data(contentsOf: folder.appendingPathComponent(name))
            #expect(Array(text.utf8) == Array(onDisk), "\(name) changed: run `python3 Deploy/embed.py`")
        }
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
