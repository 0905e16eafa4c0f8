import Crypto
import Foundation

/// Finds and reads the numbered SQL files of `Schema/`.
///
/// The binary looks, in order: `SCORECAST_SCHEMA_DIR`; `Schema/` beside the package it was
/// built from (`.build/<configuration>/scorecast` → `../../Schema`); `../share/scorecast/Schema`
/// beside an installed binary; `Schema/` in the working directory.
public enum SchemaFolder {
    /// The folders searched, in order.
    public static func candidates(environment: [String: String]) -> [URL] {
        var urls: [URL] = []
        if let explicit = environment["SCORECAST_SCHEMA_DIR"], !explicit.isEmpty {
            urls.append(URL(fileURLWithPath: explicit))
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let binDirectory = executable.deletingLastPathComponent()
        urls.append(binDirectory.appendingPathComponent("../../Schema").standardizedFileURL)
        urls.append(binDirectory.appendingPathComponent("../share/scorecast/Schema").standardizedFileURL)
        urls.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Schema"))
        return urls
    }

    /// The first candidate folder that holds at least one `.sql` file.
    public static func locate(environment: [String: String]) throws(MigrationError) -> URL {
        let candidates = candidates(environment: environment)
        for url in candidates {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            if names.contains(where: { $0.hasSuffix(".sql") }) { return url }
        }
        throw .schemaFolderNotFound(candidates.map(\.path))
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
