extension JSONValue {
    /// `value` as ``JSONParser`` reads back its JSON text: a whole number within ±2^53 is written
    /// without a fraction (`1.0` as `1`, which is what Foundation's JSON encoder writes too) and so is an
    /// ``integer(_:)``; anything else stays a ``double(_:)``. Keeps a value built in memory equal
    /// to the same value parsed from text.
    public static func number(_ value: Double) -> JSONValue {
        // 2^53 itself still prints as "9007199254740992.0"; above it Swift's description turns
        // to an exponent ("9.007199254740994e+15"), which reads back as a double.
        if value == value.rounded(), abs(value) <= 9_007_199_254_740_992 {
            return .integer(Int(value))
        }
        return .double(value)
    }

    /// A `Float` as ``JSONParser`` reads back the text Foundation's JSON encoder writes for it (its
    /// `description`, less a trailing `.0`): `0.1`, not the `Double` value 0.10000000149011612.
    static func number(_ value: Float) -> JSONValue {
        let text = value.description
        if text.hasSuffix(".0"), let whole = Int(text.dropLast(2)) { return .integer(whole) }
        return .double(Double(text) ?? Double(value))
    }

    /// An integer; one beyond `Int` reads back as a double, as its JSON text does.
    static func number(_ value: some BinaryInteger) -> JSONValue {
        Int(exactly: value).map(JSONValue.integer) ?? .double(Double(value))
    }
}
