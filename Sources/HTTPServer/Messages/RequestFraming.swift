import Foundation

/// How a request says where its body ends, checked strictly before anything is read: a request
/// whose framing two readers could understand differently (a proxy in front and this server)
/// is refused rather than guessed at, which is what request smuggling relies on.
///
/// - `Content-Length` must be digits; repeated (as separate fields or a list) only with one
///   value, else `400`.
/// - `Transfer-Encoding` may only be `chunked` (`501` for any other coding), and never together
///   with `Content-Length` (`400`).
enum RequestFraming {
    /// The problem with `headers`' framing, or `nil` when the body's end is unambiguous.
    static func problem(in headers: HTTPHeaders) -> Problem? {
        let lengths = listItems(headers.values(for: "Content-Length"))
        if let bad = lengths.first(where: { $0.isEmpty || !$0.utf8.allSatisfy { (0x30...0x39).contains($0) } }) {
            return .badRequest("Content-Length '\(bad.prefix(40))' is not a number of bytes")
        }
        let distinct = Set(lengths.map { $0.drop { $0 == "0" } })
        if distinct.count > 1 {
            return .badRequest("the request has conflicting Content-Length values (\(lengths.prefix(4).map { $0.prefix(20) }.joined(separator: ", ")))")
        }
        let codings = listItems(headers.values(for: "Transfer-Encoding")).map { $0.lowercased() }
        guard !codings.isEmpty else { return nil }
        if let unknown = codings.first(where: { $0 != "chunked" }) {
            return Problem(
                status: .notImplemented,
                detail: "the transfer coding '\(unknown.prefix(40))' is not supported; send chunked or a Content-Length")
        }
        if codings.count > 1 {
            return .badRequest("the body is declared chunked more than once")
        }
        if !lengths.isEmpty {
            return .badRequest("the request has both Transfer-Encoding and Content-Length; send one")
        }
        return nil
    }

    /// The comma-separated items of every field value, trimmed.
    private static func listItems(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
