/// Which APNs port a request arrived on.
enum APNsPort: String, Sendable {
    /// `api[.sandbox].push.apple.com`: broadcasts and device pushes.
    case send
    /// `api-manage-broadcast[.sandbox].push.apple.com`: channel management.
    case management
}

/// The operation a request path names (apns.md §2, §3, §7). Pure.
enum APNsRoute: Equatable {
    /// `POST /4/broadcasts/apps/<bundleId>`.
    case broadcast(bundleID: String)
    /// `POST /3/device/<token>`.
    case device(token: String)
    /// `POST|GET|DELETE /1/apps/<bundleId>/channels`.
    case channels(bundleID: String)
    /// `GET /1/apps/<bundleId>/all-channels`.
    case allChannels(bundleID: String)

    /// The methods the operation accepts.
    var methods: Set<String> {
        switch self {
        case .broadcast, .device: ["POST"]
        case .channels: ["POST", "GET", "DELETE"]
        case .allChannels: ["GET"]
        }
    }

    /// The route for `path` on `port`, or `nil` for a path APNs does not serve there (`BadPath`).
    /// A query string is ignored; bundle ids must be non-empty and contain no `/`.
    static func match(path rawPath: String, port: APNsPort) -> APNsRoute? {
        let path = rawPath.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? rawPath
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        // A leading "/" yields an empty first segment.
        guard segments.count >= 2, segments[0].isEmpty else { return nil }
        let parts = segments.dropFirst()
        switch port {
        case .send:
            if parts.count == 4, parts[parts.startIndex] == "4", parts[parts.startIndex + 1] == "broadcasts",
               parts[parts.startIndex + 2] == "apps", !parts[parts.startIndex + 3].isEmpty {
                return .broadcast(bundleID: String(parts[parts.startIndex + 3]))
            }
            if parts.count == 3, parts[parts.startIndex] == "3", parts[parts.startIndex + 1] == "device" {
                return .device(token: String(parts[parts.startIndex + 2]))
            }
            return nil
        case .management:
            guard parts.count == 4, parts[parts.startIndex] == "1", parts[parts.startIndex + 1] == "apps",
                  !parts[parts.startIndex + 2].isEmpty else { return nil }
            let bundleID = String(parts[parts.startIndex + 2])
            switch parts[parts.startIndex + 3] {
            case "channels": return .channels(bundleID: bundleID)
            case "all-channels": return .allChannels(bundleID: bundleID)
            default: return nil
            }
        }
    }
}
