/// Where a game is in its life, as folded from its events (see ``EventKind`` for the transitions).
public enum GameStatus: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Not started.
    case scheduled
    /// In play (including breaks between periods).
    case live
    /// Interrupted indefinitely; may resume.
    case suspended
    /// Over.
    case final
    /// Called off or postponed.
    case cancelled

    /// Whether the game has ended, so its Live Activity should end too.
    public var isOver: Bool {
        self == .final || self == .cancelled
    }

    /// The text shown in logs and error messages.
    public var description: String { rawValue }
}
