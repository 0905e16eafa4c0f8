/// Splits and decodes a request target (`/v1/games/a%20b?since=3&x=1+2`) as it came off the wire.
///
/// Decoding happens per path segment, after splitting, so an encoded slash (`%2F`) stays inside
/// its segment instead of creating a new one.
struct RequestTarget: Sendable, Equatable {
    /// The path exactly as sent (still percent-encoded), without the query.
    var path: String
    /// The raw query (after `?`), if any.
    var query: String?

    /// Splits `raw` at the first `?` (and drops a `#fragment`). An absolute-form target
    /// (`http://host/path`) keeps only its path.
    init(_ raw: String) {
        var target = Substring(raw)
        if let hash = target.firstIndex(of: "#") { target = target[..<hash] }
        if target.first != "/" {
            for scheme in ["http://", "https://"] where target.lowercased().hasPrefix(scheme) {
                let afterScheme = target.dropFirst(scheme.count)
                target = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }).map { afterScheme[$0...] } ?? "/"
                if target.first == "?" { target = "/" + target }
            }
        }
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = String(target[target.index(after: mark)...])
        } else {
            path = String(target)
            query = nil
        }
        if path.isEmpty { path = "/" }
    }

    /// The decoded, non-empty segments of `path` (`/a//b/` gives `["a", "b"]`); `nil` if a
    /// segment is not valid percent-encoded UTF-8.
    static func segments(of path: String) -> [String]? {
        var out: [String] = []
        for raw in path.split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = PercentDecoding.decode(raw, plusIsSpace: false) else { return nil }
            out.append(decoded)
        }
        return out
    }

    /// The answer to a query that is not valid percent-encoded UTF-8.
    static var invalidQuery: Problem { .badRequest("the query string is not valid percent-encoded UTF-8") }

    /// The decoded `name=value` pairs of `query` (`+` is a space; a name without `=` has an
    /// empty value); `nil` if any part is not valid percent-encoded UTF-8.
    static func queryItems(of query: String?) -> [QueryItem]? {
        guard let query, !query.isEmpty else { return [] }
        var items: [QueryItem] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentDecoding.decode(parts[0], plusIsSpace: true),
                  let value = parts.count > 1 ? PercentDecoding.decode(parts[1], plusIsSpace: true) : ""
            else { return nil }
            items.append(QueryItem(name: name, value: value))
        }
        return items
    }
}
