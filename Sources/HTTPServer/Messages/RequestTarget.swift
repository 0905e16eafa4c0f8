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
        for scheme in ["http://", "https://"] where target.lowercased().hasPrefix(scheme) {
            let afterScheme = target.dropFirst(scheme.count)
            target = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }).map { afterScheme[$0...] } ?? "/"
            if target.first == "?" { target = "/" + target }
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

/// `%XX` decoding that rejects malformed escapes and invalid UTF-8 instead of guessing.
enum PercentDecoding {
    static func decode(_ text: Substring, plusIsSpace: Bool) -> String? {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let high = utf8.index(after: index)
                guard high < utf8.endIndex else { return nil }
                let low = utf8.index(after: high)
                guard low < utf8.endIndex, let h = hexValue(utf8[high]), let l = hexValue(utf8[low]) else { return nil }
                bytes.append(h << 4 | l)
                index = utf8.index(after: low)
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
