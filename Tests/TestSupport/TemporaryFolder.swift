import Foundation

/// A fresh temporary folder, removed by `remove()`: the test targets' one temporary-folder
/// helper.
public struct TemporaryFolder: Sendable {
    /// Its location.
    public let url: URL

    /// Creates the folder under the system temp folder.
    public init(_ prefix: String = "scorecast-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Its location as a path.
    public var path: String { url.path }

    /// Writes `text` to `name` in this folder; returns the file's path.
    public func write(_ name: String, _ text: String) throws -> String {
        try write(name, Array(text.utf8))
    }

    /// Writes `bytes` to `name` in this folder; returns the file's path.
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file.path
    }

    /// Deletes it and everything in it.
    public func remove() { try? FileManager.default.removeItem(at: url) }
}
