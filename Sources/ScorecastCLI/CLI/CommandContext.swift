import Foundation
import ScorecastLogging
import Server
import ServiceBase

/// What every command gets: the environment, the terminal, and the validated configuration.
package struct CommandContext: Sendable {
    /// The process environment (tests pass their own).
    package let environment: [String: String]
    /// Where output goes.
    package let terminal: Terminal

    /// Creates a context.
    package init(environment: [String: String], terminal: Terminal = Terminal()) {
        self.environment = environment
        self.terminal = terminal
    }

    /// The configuration, validated; an invalid variable is a usage error naming it.
    package func configuration() throws -> Configuration {
        do {
            return try Configuration.load(from: environment)
        } catch {
            throw CommandError(.usage, error.description)
        }
    }

    /// A logger for a one-shot command: `SCORECAST_LOG_LEVEL` when set, else warnings only, so
    /// that a command's own output is not buried under start-up lines.
    package func logger(_ label: String, _ configuration: Configuration) -> Logger {
        Logger(label: label, level: logLevelIsSet ? configuration.logLevel : .warning, format: configuration.logFormat)
    }

    /// Whether `SCORECAST_LOG_LEVEL` is set: commands then log at that level (validated by
    /// `Configuration`), else at a quieter default of their own. The one place the CLI looks.
    package var logLevelIsSet: Bool { environment[Setting.logLevel.name] != nil }
}
