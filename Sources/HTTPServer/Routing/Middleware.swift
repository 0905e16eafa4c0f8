/// What answers a request: a route's handler, or the rest of a middleware chain.
public typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse

/// Code that runs around a handler: it may inspect or change the request, answer (or throw a
/// `Problem`) without calling `next`, or change the response `next` returns.
///
/// ```swift
/// let auth = Middleware { request, next in
///     guard request.headers["Authorization"] == "Bearer \(apiKey)" else {
///         throw Problem(status: .unauthorized, headers: ["WWW-Authenticate": "Bearer"])
///     }
///     return try await next(request)
/// }
/// ```
/// Middleware compose: `a.followed(by: b)` runs `a` first, then `b`, then the handler.
public struct Middleware: Sendable {
    private let body: @Sendable (HTTPRequest, @escaping Handler) async throws -> HTTPResponse

    /// Creates middleware from a closure receiving the request and the next handler.
    public init(_ body: @escaping @Sendable (_ request: HTTPRequest, _ next: @escaping Handler) async throws -> HTTPResponse) {
        self.body = body
    }

    /// Runs the middleware for `request`, with `next` as the rest of the chain.
    public func handle(_ request: HTTPRequest, next: @escaping Handler) async throws -> HTTPResponse {
        try await body(request, next)
    }

    /// `handler` wrapped by this middleware.
    public func wrap(_ handler: @escaping Handler) -> Handler {
        { request in try await body(request, handler) }
    }

    /// This middleware, then `other`, then whatever they wrap.
    public func followed(by other: Middleware) -> Middleware {
        Middleware { request, next in try await self.handle(request, next: other.wrap(next)) }
    }

    /// `handler` wrapped by `chain`, the first element outermost (it runs first).
    public static func apply(_ chain: [Middleware], to handler: @escaping Handler) -> Handler {
        chain.reversed().reduce(handler) { inner, middleware in middleware.wrap(inner) }
    }
}
