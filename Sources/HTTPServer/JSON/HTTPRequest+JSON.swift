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

/// Turns a failed decode into a problem naming what is wrong.
enum JSONProblem {
    static func explain<T: Decodable>(body: [UInt8], type: T.Type, error original: DecodingError) -> Problem {
        let tree: JSONValue
        do {
            tree = try JSONParser.parse(body)
        } catch {
            return .badRequest("the request body is not valid JSON: \(error.description)")
        }
        let diagnosed: DecodingError
        do {
            _ = try DiagnosticDecoder.decode(type, from: tree)
            diagnosed = original
        } catch let error as DecodingError {
            diagnosed = error
        } catch {
            diagnosed = original
        }
        guard let (path, detail) = locate(diagnosed) else {
            return .badRequest("the request body is not valid JSON")
        }
        let field = Problem.FieldError(path: path, detail: detail)
        let location = path.components.isEmpty ? "the document" : path.dotted
        return .unprocessable(
            "the JSON body does not match the expected shape: \(location): \(detail)",
            errors: [field])
    }

    /// The field and message of a decoding error; `nil` for a syntax error with no location.
    /// Messages from `DiagnosticDecoder` (lower-case, written for clients) are kept; those of
    /// `JSONDecoder` are replaced by a plain description where they mention Swift internals.
    private static func locate(_ error: DecodingError) -> (FieldPath, String)? {
        func friendly(_ context: DecodingError.Context) -> String? {
            context.debugDescription.first?.isLowercase == true ? context.debugDescription : nil
        }
        switch error {
        case .typeMismatch(let type, let context):
            return (FieldPath(codingPath: context.codingPath), friendly(context) ?? "expected \(DiagnosticDecoder.describe(type))")
        case .valueNotFound(let type, let context):
            return (FieldPath(codingPath: context.codingPath),
                    friendly(context) ?? "must not be null; expected \(DiagnosticDecoder.describe(type))")
        case .keyNotFound(let key, let context):
            return (FieldPath(codingPath: context.codingPath + [key]), "is required")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty && context.debugDescription == "The given data was not valid JSON." { return nil }
            return (FieldPath(codingPath: context.codingPath), context.debugDescription)
        @unknown default:
            return nil
        }
    }
}
