/// What a route checks on a request's headers alone, before its body is read: credentials,
/// rate limits. The server runs it as soon as the headers are complete, so a client without
/// credentials is answered (and its connection freed) without sending, or holding the server
/// for, a body it announced.
///
/// The check sees the request with its path parameters and an empty body. It returns `nil` to
/// let the request through (its body is then read and its handler runs), or the response that
/// refuses it; a thrown `Problem` refuses with that problem.
///
/// ```swift
/// let feedKey = Gate { request in
///     guard request.headers["Authorization"] == "Bearer \(key)" else {
///         throw Problem(status: .unauthorized, headers: ["WWW-Authenticate": "Bearer"])
///     }
///     return nil
/// }
/// router.post("/v1/events", gate: feedKey) { request in … }
/// ```
public struct Gate: Sendable {
    private let check: @Sendable (HTTPRequest) async throws -> HTTPResponse?

    /// Creates a gate from a check of the request's headers; `nil` lets the request through.
    public init(_ check: @escaping @Sendable (_ request: HTTPRequest) async throws -> HTTPResponse?) {
        self.check = check
    }

    /// Runs the check: `nil` when `request` may go on, otherwise the refusal.
    public func screen(_ request: HTTPRequest) async throws -> HTTPResponse? {
        try await check(request)
    }
}
