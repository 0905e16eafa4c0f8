/// A route's path template, such as `/v1/games/{id}/channels`: literal segments match exactly,
/// `{name}` segments match any one segment and capture it (percent-decoded) under `name`.
/// Empty segments are ignored, so `/v1/stats/` and `/v1/stats` are the same path.
struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    let segments: [Segment]
    let description: String

    init(_ pattern: String) {
        description = pattern
        segments = pattern.split(separator: "/", omittingEmptySubsequences: true).map { raw in
            if raw.count > 2, raw.first == "{", raw.last == "}" {
                return .parameter(String(raw.dropFirst().dropLast()))
            }
            return .literal(PercentDecoding.decode(raw, plusIsSpace: false) ?? String(raw))
        }
    }

    /// The captured parameters if `path` (decoded segments) matches; `nil` otherwise.
    func match(_ path: [String]) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, value) in zip(segments, path) {
            switch segment {
            case .literal(let literal):
                guard literal == value else { return nil }
            case .parameter(let name):
                parameters[name] = value
            }
        }
        return parameters
    }

    /// Whether `self` should win over `other` when both match a path: at the first segment
    /// where they differ, a literal beats a parameter (`/games/live` before `/games/{id}`).
    func isMoreSpecific(than other: RoutePattern) -> Bool {
        for (mine, theirs) in zip(segments, other.segments) {
            switch (mine, theirs) {
            case (.literal, .parameter): return true
            case (.parameter, .literal): return false
            default: continue
            }
        }
        return false
    }

    /// Patterns that match exactly the same paths (parameter names aside).
    func hasSameShape(as other: RoutePattern) -> Bool {
        guard segments.count == other.segments.count else { return false }
        return zip(segments, other.segments).allSatisfy { mine, theirs in
            switch (mine, theirs) {
            case (.literal(let a), .literal(let b)): a == b
            case (.parameter, .parameter): true
            default: false
            }
        }
    }
}
