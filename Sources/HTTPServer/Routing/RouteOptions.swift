/// Per-route settings the server enforces before the handler runs.
public struct RouteOptions: Sendable, Hashable {
    /// The largest accepted body in bytes for this route, overriding
    /// `HTTPServerConfiguration.maxBodyBytes` (larger or smaller); `nil` keeps the server's.
    public var maxBodyBytes: Int?
    /// Whether the body must be JSON (`application/json` or `application/…+json`); other
    /// content types are answered with `415` before the handler runs (after the route's
    /// middleware, so that authentication is checked first).
    public var requiresJSON: Bool

    /// Creates options; the defaults impose nothing beyond the server's limits.
    public init(maxBodyBytes: Int? = nil, requiresJSON: Bool = false) {
        self.maxBodyBytes = maxBodyBytes
        self.requiresJSON = requiresJSON
    }

    /// A JSON-only route (415 otherwise), optionally with its own body limit.
    public static func json(maxBodyBytes: Int? = nil) -> RouteOptions {
        RouteOptions(maxBodyBytes: maxBodyBytes, requiresJSON: true)
    }
}
