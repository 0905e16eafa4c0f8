import APNs
import Foundation
import ScorecastCore

/// How one send ended, as the worker saw it.
package enum SendOutcome: Sendable {
    /// APNs answered (any status).
    case answered(APNsResponse)
    /// No answer: the client threw (transport failure, refusal before sending, cancellation).
    case failed(APNsClientError)
    /// The app's credentials could not be loaded (missing or unreadable `.p8`, malformed ids);
    /// nothing was sent.
    case credentialsUnavailable(String)
}
