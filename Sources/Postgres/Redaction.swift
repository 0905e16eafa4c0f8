/// Keeps secrets and bound values out of error messages.
enum Redaction {
    static let mask = "********"

    /// `message` with every occurrence of each (non-empty) secret replaced by a mask.
    static func redact(_ message: String, secrets: [String]) -> String {
        var message = message
        for secret in secrets where !secret.isEmpty {
            message = message.replacing(secret, with: mask)
        }
        return message
    }

    /// The strings that may be a password in a connection string, so a parse error that echoes
    /// part of it can be redacted: the URL's user-info password (raw and percent-decoded) and
    /// any `password=` value.
    static func passwordCandidates(in connectionString: String) -> [String] {
        var candidates: [String] = []
        if let schemeEnd = connectionString.range(of: "://") {
            let rest = connectionString[schemeEnd.upperBound...]
            if let at = rest.lastIndex(of: "@") {
                let userInfo = rest[..<at]
                if let colon = userInfo.firstIndex(of: ":") {
                    let raw = String(userInfo[userInfo.index(after: colon)...])
                    candidates.append(raw)
                    if let decoded = raw.removingPercentEncoding { candidates.append(decoded) }
                }
            }
        }
        var remaining = connectionString[...]
        while let range = remaining.range(of: "password=") {
            var value = remaining[range.upperBound...]
            if value.first == "'" { value = value.dropFirst() }
            let end = value.firstIndex(where: { $0 == " " || $0 == "'" || $0 == "&" }) ?? value.endIndex
            candidates.append(String(value[..<end]))
            remaining = value[end...]
        }
        return candidates.sorted { $0.count > $1.count }
    }

    /// A server message without bound values. Data exceptions (SQLSTATE class 22, such as
    /// `invalid input syntax for type integer: "…"`) quote the offending input, so every quoted
    /// segment of theirs is masked; other messages quote identifiers, so there only a segment
    /// equal to a bound value is masked.
    static func redactBoundValues(_ message: String, sqlState: String?, binds: [PostgresBindValue]) -> String {
        let quotesInput = sqlState?.hasPrefix("22") == true
        let values = Set(binds.compactMap { bind -> String? in
            guard bind.format == .text, let bytes = bind.bytes, !bytes.isEmpty else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        })
        guard quotesInput || !values.isEmpty else { return message }
        var out = ""
        var rest = message[...]
        while let open = rest.firstIndex(of: "\"") {
            out += rest[...open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "\"") else {
                rest = rest[afterOpen...]
                break
            }
            let quoted = String(rest[afterOpen..<close])
            out += quotesInput || values.contains(quoted) ? mask : quoted
            out += "\""
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }
}
