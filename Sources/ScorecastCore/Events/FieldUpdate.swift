/// A change to one optional field of a partial update: leave it, set it, or clear it
/// (a JSON key that is absent, present, or `null`).
public enum FieldUpdate<Value: Sendable & Hashable>: Sendable, Hashable {
    /// The key was absent: keep the current value.
    case keep
    /// The key had a value.
    case set(Value)
    /// The key was `null`: remove the current value.
    case clear

    /// The value after applying this update to `current`.
    public func applied(to current: Value?) -> Value? {
        switch self {
        case .keep: current
        case .set(let value): value
        case .clear: nil
        }
    }
}
