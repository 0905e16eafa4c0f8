/// Which team an event concerns.
public enum TeamSide: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The home team.
    case home
    /// The away team.
    case away

    public var description: String { rawValue }
}
