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

extension SendOutcome {
    /// An answer or the client's failure to get one.
    init(_ result: Result<APNsResponse, APNsClientError>) {
        switch result {
        case .success(let response): self = .answered(response)
        case .failure(let error): self = .failed(error)
        }
    }
}
