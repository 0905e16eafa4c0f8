/// The request methods the server routes. Requests with any other method are answered with
/// `501 Not Implemented` before they reach a handler.
public enum HTTPMethod: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case get = "GET"
    case head = "HEAD"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
    case options = "OPTIONS"

    /// The method as it appears on the request line, e.g. `GET`.
    public var description: String { rawValue }
}
