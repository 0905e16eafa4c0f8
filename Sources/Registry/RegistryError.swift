import APNs
import Postgres
import ServiceBase

/// The one error type of the registry: what went wrong (`code`) and a message for people that
/// names the app, game, channel or file at fault and never contains key material.
package struct RegistryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is; each maps to one CLI exit code (`exitCode`).
    package enum Code: String, Sendable, Equatable {
        /// An argument is malformed or out of range (a bundle id, an id, a key file…).
        case invalidInput
        /// The app, game or channel named does not exist.
        case notFound
        /// The thing to create exists already (an app for that bundle and environment, a game id).
        case alreadyExists
        /// APNs answered with a failure status; `status` and `reason` say which.
        case apnsRefused
        /// APNs could not be reached or did not answer (timeout, TLS, connection).
        case apnsUnavailable
        /// The app has as many channels as the channel limit allows.
        case channelLimitReached
        /// The database is unreachable or failed in a way that is not the caller's fault.
        case databaseUnavailable
        /// The APNs simulator's admin API refused or could not be reached.
        case simulatorUnavailable
        /// A stored app's key file cannot be used (moved, unreadable, not a P-256 key).
        case credentialsUnusable
    }

    /// What kind of failure this is.
    package let code: Code
    /// What went wrong, for people.
    package let message: String
    /// The HTTP status APNs answered, for `.apnsRefused`.
    package let status: Int?
    /// The reason APNs answered, for `.apnsRefused` (verbatim).
    package let reason: String?

    /// Creates an error.
    package init(_ code: Code, _ message: String, status: Int? = nil, reason: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.reason = reason
    }

    package var description: String { message }

    /// An APNs failure answer to `operation` (e.g. "creating a channel for com.example.app").
    static func refused(_ response: APNsResponse, while operation: String) -> RegistryError {
        let reason = response.reason?.rawValue
        return RegistryError(
            .apnsRefused, "APNs refused \(operation): \(response.status)\(reason.map { " \($0)" } ?? "")",
            status: response.status, reason: reason)
    }

    /// A request that got no APNs answer.
    static func unavailable(_ error: APNsClientError, while operation: String) -> RegistryError {
        RegistryError(.apnsUnavailable, "APNs did not answer \(operation): \(error.message) (\(error.code.rawValue))")
    }

    /// A database failure while `operation`; the message is the server's (never SQL or values).
    static func database(_ error: PostgresError, while operation: String) -> RegistryError {
        if UnmigratedSchema.matches(error) {
            return RegistryError(
                .databaseUnavailable, "\(UnmigratedSchema.problem) (while \(operation)): \(UnmigratedSchema.advice)")
        }
        return RegistryError(.databaseUnavailable, "database failure while \(operation): \(error.message)")
    }
}
