/// Which team an event concerns.
public enum TeamSide: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The home team.
    case home
    /// The away team.
    case away

    /// The text shown in logs and error messages.
    public var description: String { rawValue }
}
