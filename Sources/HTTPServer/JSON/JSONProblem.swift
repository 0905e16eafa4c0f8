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
