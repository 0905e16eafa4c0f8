/// Maps method and path to handlers, with middleware around them.
///
/// ```swift
/// var router = Router()
/// router.use(requestTiming)                       // runs for every request, even 404s
/// router.get("/v1/games/{id}/channels") { request in
///     let id = try request.pathParameter("id")
///     return try .json(channels(for: id))
/// }
/// router.post("/v1/events", options: .json(maxBodyBytes: 4 << 20), middleware: [apiKeyAuth]) { request in
///     let batch = try EventBatch(json: request.jsonBody())
///     return try .json(ingest(batch), status: .accepted)
/// }
/// ```
///
/// Dispatch rules:
/// - an unknown path is a `404` problem; a known path without a route for the method is a
///   `405` problem whose `Allow` header lists the methods that exist;
/// - `HEAD` is served by the `GET` route unless a `HEAD` route exists (the body is not sent);
/// - when several patterns match, the one with a literal at the first differing segment wins
///   (`/games/live` before `/games/{id}`); registering the same method and pattern shape again
///   replaces the earlier route;
/// - a path that is not valid percent-encoded UTF-8 is a `400` problem;
/// - a route's `Gate` runs before its middleware and handler; the server runs it (and answers
///   requests that match no route) as soon as the headers are in, before reading the body.
///
/// A value type: build it, then hand it to `HTTPServer` (or call `respond(to:)` in tests).
public struct Router: Sendable {
    struct Route: Sendable {
        let method: HTTPMethod
        let pattern: RoutePattern
        let options: RouteOptions
        /// The check of the request's headers, run before the body is read.
        let gate: Gate?
        /// The handler wrapped in the route's middleware and checks.
        let handler: Handler
    }

    /// The outcome of looking a request up.
    enum Resolution: Sendable {
        case matched(Route, parameters: [String: String])
        case notFound
        case methodNotAllowed(allowed: [HTTPMethod])
        case invalidPath
    }

    private var routes: [Route] = []
    private var middleware: [Middleware] = []

    /// Creates an empty router: every request is a `404`.
    public init() {}

    /// Adds middleware around every request, including those answered `404`/`405` (it runs
    /// before routing, so `pathParameters` are still empty). Earlier calls run first.
    public mutating func use(_ middleware: Middleware) {
        self.middleware.append(middleware)
    }

    /// One registered route, as `table` lists it.
    public struct Entry: Sendable, Hashable {
        /// The route's method.
        public let method: HTTPMethod
        /// The pattern as registered (`/v1/games/{id}`).
        public let pattern: String
        /// Whether the route has a `Gate`.
        public let isGated: Bool
    }

    /// Every registered route, in registration order: what a test walks to prove that no route
    /// was left without its credentials check.
    public var table: [Entry] {
        routes.map { Entry(method: $0.method, pattern: $0.pattern.description, isGated: $0.gate != nil) }
    }

    /// Registers `handler` for `method` on `pattern` (`/v1/games/{id}`), with optional
    /// per-route options, a gate checking the headers before the body is read, and middleware
    /// (first element runs first, after routing and the gate, so it sees `pathParameters`).
    public mutating func add(
        _ method: HTTPMethod,
        _ pattern: String,
        options: RouteOptions = RouteOptions(),
        gate: Gate? = nil,
        middleware: [Middleware] = [],
        handler: @escaping Handler
    ) {
        let parsed = RoutePattern(pattern)
        var checked = handler
        if options.requiresJSON {
            checked = { request in
                try request.requireJSONContentType()
                return try await handler(request)
            }
        }
        let route = Route(method: method, pattern: parsed, options: options, gate: gate, handler: Middleware.apply(middleware, to: checked))
        routes.removeAll { $0.method == method && $0.pattern.hasSameShape(as: parsed) }
        routes.append(route)
    }

    /// Registers a `GET` route (which also answers `HEAD`).
    public mutating func get(
        _ pattern: String, options: RouteOptions = RouteOptions(), gate: Gate? = nil, middleware: [Middleware] = [], handler: @escaping Handler
    ) {
        add(.get, pattern, options: options, gate: gate, middleware: middleware, handler: handler)
    }

    /// Registers a `POST` route.
    public mutating func post(
        _ pattern: String, options: RouteOptions = RouteOptions(), gate: Gate? = nil, middleware: [Middleware] = [], handler: @escaping Handler
    ) {
        add(.post, pattern, options: options, gate: gate, middleware: middleware, handler: handler)
    }

    /// Registers a `PUT` route.
    public mutating func put(
        _ pattern: String, options: RouteOptions = RouteOptions(), gate: Gate? = nil, middleware: [Middleware] = [], handler: @escaping Handler
    ) {
        add(.put, pattern, options: options, gate: gate, middleware: middleware, handler: handler)
    }

    /// Registers a `PATCH` route.
    public mutating func patch(
        _ pattern: String, options: RouteOptions = RouteOptions(), gate: Gate? = nil, middleware: [Middleware] = [], handler: @escaping Handler
    ) {
        add(.patch, pattern, options: options, gate: gate, middleware: middleware, handler: handler)
    }

    /// Registers a `DELETE` route.
    public mutating func delete(
        _ pattern: String, options: RouteOptions = RouteOptions(), gate: Gate? = nil, middleware: [Middleware] = [], handler: @escaping Handler
    ) {
        add(.delete, pattern, options: options, gate: gate, middleware: middleware, handler: handler)
    }

    /// Answers `request` as the server would, minus transport: global middleware, routing,
    /// the route's gate, route middleware, handler. Problems are thrown, not rendered.
    public func respond(to request: HTTPRequest) async throws -> HTTPResponse {
        try await respond(to: request, screened: false)
    }

    /// As `respond(to:)`; `screened` when the server already ran the route's gate on the
    /// headers (`screen(_:)`).
    func respond(to request: HTTPRequest, screened: Bool) async throws -> HTTPResponse {
        try await Middleware.apply(middleware) { request in try await dispatch(request, screened: screened) }(request)
    }

    /// What the server asks once the headers are in: `nil` when the body should be read and
    /// the request answered later, or the answer now — the gate's refusal, or the problem of a
    /// request that matches no route (its body is never read).
    func screen(_ request: HTTPRequest) async throws -> HTTPResponse? {
        switch resolve(method: request.method, path: request.path) {
        case .matched(let route, let parameters):
            guard let gate = route.gate else { return nil }
            var request = request
            request.pathParameters = parameters
            return try await gate.screen(request)
        case .notFound, .methodNotAllowed, .invalidPath:
            return try await respond(to: request, screened: false)
        }
    }

    private func dispatch(_ request: HTTPRequest, screened: Bool) async throws -> HTTPResponse {
        switch resolve(method: request.method, path: request.path) {
        case .matched(let route, let parameters):
            var request = request
            request.pathParameters = parameters
            if !screened, let gate = route.gate, let refusal = try await gate.screen(request) { return refusal }
            return try await route.handler(request)
        case .notFound:
            throw Problem.notFound("there is nothing at \(request.path)")
        case .methodNotAllowed(let allowed):
            throw Problem.methodNotAllowed(request.method.rawValue, allowed: allowed)
        case .invalidPath:
            throw Problem.badRequest("the path is not valid percent-encoded UTF-8")
        }
    }

    /// Finds the route for `method` and the raw `path`.
    func resolve(method: HTTPMethod, path: String) -> Resolution {
        guard let segments = RequestTarget.segments(of: path) else { return .invalidPath }
        var matching: [(route: Route, parameters: [String: String])] = []
        for route in routes {
            if let parameters = route.pattern.match(segments) { matching.append((route, parameters)) }
        }
        guard !matching.isEmpty else { return .notFound }
        let wanted: [HTTPMethod] = method == .head ? [.head, .get] : [method]
        for candidateMethod in wanted {
            let candidates = matching.filter { $0.route.method == candidateMethod }
            if let best = candidates.dropFirst().reduce(candidates.first, { best, next in
                guard let best else { return next }
                return next.route.pattern.isMoreSpecific(than: best.route.pattern) ? next : best
            }) {
                return .matched(best.route, parameters: best.parameters)
            }
        }
        var allowed = Set(matching.map(\.route.method))
        if allowed.contains(.get) { allowed.insert(.head) }
        return .methodNotAllowed(allowed: HTTPMethod.allCases.filter { allowed.contains($0) })
    }
}
