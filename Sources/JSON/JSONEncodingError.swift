/// Why a ``JSONValue`` could not be written as JSON text.
public enum JSONEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A NaN or infinite number at the given path (`$.aps.relevance-score`); JSON has no such numbers.
    case nonFiniteNumber(path: String)

    /// The text shown in logs and error messages.
    public var description: String {
        switch self {
        case .nonFiniteNumber(let path):
            "\(path) is not a finite number; JSON cannot carry NaN or infinity"
        }
    }
}
