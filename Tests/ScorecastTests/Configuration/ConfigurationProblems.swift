import Foundation
@testable import ServiceBase

extension Configuration {
    /// The problems `load` reports for `environment` (none when it loads).
    static func problems(loading environment: [String: String], workingDirectory: URL) -> [String] {
        do {
            _ = try Configuration.load(from: environment, workingDirectory: workingDirectory)
            return []
        } catch {
            return error.problems
        }
    }
}
