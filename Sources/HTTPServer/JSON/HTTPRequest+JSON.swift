import Foundation

extension HTTPRequest {
    /// Decodes the body as JSON (dates as ISO 8601 strings).
    ///
    /// Throws a `Problem` a client can act on:
    /// - `400` when the body is empty or not JSON, with the line and column of the first
    ///   syntax error;
    /// - `422` when it is JSON of the wrong shape, naming the field at fault both in `detail`
    ///   and in `errors` (`events[2].seq`, pointer `/events/2/seq`): a wrong type, a missing
    ///   key, a `null`, a number out of range, an invalid date or enum value.
    ///
    /// A `Problem` thrown by a type's own `init(from:)` passes through unchanged.
    public func decodeJSON<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        guard !body.isEmpty else {
            throw Problem.badRequest("the request body is empty; expected a JSON document")
        }
        do {
            return try JSONCoding.decoder().decode(type, from: Data(body))
        } catch let error as DecodingError {
            throw JSONProblem.explain(body: body, type: type, error: error)
        }
    }

    /// Throws a `415` `Problem` unless `Content-Type` is `application/json` or an
    /// `application/…+json` type (parameters such as `charset` are ignored).
    public func requireJSONContentType() throws {
        guard hasJSONContentType else {
            throw Problem.unsupportedMediaType(expected: "application/json", got: headers["Content-Type"])
        }
    }

    /// Whether `Content-Type` names JSON (`application/json`, `application/problem+json`…).
    public var hasJSONContentType: Bool {
        guard let value = headers["Content-Type"] else { return false }
        let mediaType = value.split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        } ?? ""
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }
}
