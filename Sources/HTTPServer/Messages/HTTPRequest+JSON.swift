import Foundation
import JSON

extension HTTPRequest {
    /// The body parsed by the project's one strict JSON parser (duplicate keys, invalid UTF-8,
    /// trailing content and deep nesting refused).
    ///
    /// Throws a `400` `Problem` when the body is empty or not JSON, naming the byte offset and
    /// the reason. Checking the shape is the caller's job: it knows the field names to put in a
    /// `422`'s `errors`.
    public func jsonBody() throws -> JSONValue {
        guard !body.isEmpty else {
            throw Problem.badRequest("the request body is empty; expected a JSON document")
        }
        do {
            return try JSONParser().parse(body)
        } catch {
            throw Problem.badRequest("the request body is not valid JSON: \(error)")
        }
    }

    /// The body as a JSON object: ``jsonBody()``, then a `422` `Problem` when the document is
    /// not an object.
    public func jsonObject() throws -> [String: JSONValue] {
        let document = try jsonBody()
        guard let members = document.objectValue else {
            throw Problem.unprocessable("the request body must be a JSON object, got \(document.typeName)")
        }
        return members
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
