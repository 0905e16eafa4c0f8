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
    /// Works on the UTF-8 bytes: it runs for every request.
    static func match(path: String, port: APNsPort) -> APNsRoute? {
        var path = path
        return path.withUTF8 { bytes -> APNsRoute? in
            var end = bytes.count
            if let question = bytes.firstIndex(of: UInt8(ascii: "?")) { end = question }
            let whole = UnsafeBufferPointer(rebasing: bytes[0..<end])
            switch port {
            case .send:
                if let rest = suffix(of: whole, after: "/4/broadcasts/apps/"), isSegment(rest) {
                    return .broadcast(bundleID: String(decoding: rest, as: UTF8.self))
                }
                if let rest = suffix(of: whole, after: "/3/device/"), !rest.contains(UInt8(ascii: "/")) {
                    return .device(token: String(decoding: rest, as: UTF8.self))
                }
                return nil
            case .management:
                guard let rest = suffix(of: whole, after: "/1/apps/"),
                      let slash = rest.firstIndex(of: UInt8(ascii: "/")), slash > 0 else { return nil }
                let bundle = UnsafeBufferPointer(rebasing: rest[0..<slash])
                let tail = UnsafeBufferPointer(rebasing: rest[(slash + 1)...])
                if tail.elementsEqual("channels".utf8) { return .channels(bundleID: String(decoding: bundle, as: UTF8.self)) }
                if tail.elementsEqual("all-channels".utf8) { return .allChannels(bundleID: String(decoding: bundle, as: UTF8.self)) }
                return nil
            }
        }
    }

    /// The bytes after `prefix`, if `bytes` starts with it.
    private static func suffix(of bytes: UnsafeBufferPointer<UInt8>, after prefix: StaticString) -> UnsafeBufferPointer<UInt8>? {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count >= count else { return nil }
        let start = prefix.utf8Start
        for index in 0..<count where bytes[index] != start[index] { return nil }
        return UnsafeBufferPointer(rebasing: bytes[count...])
    }

    /// A non-empty path segment (no `/`).
    private static func isSegment(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        !bytes.isEmpty && !bytes.contains(UInt8(ascii: "/"))
    }
}
