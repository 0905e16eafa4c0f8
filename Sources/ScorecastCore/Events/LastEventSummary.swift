import Foundation

/// The last applied event, as shown on the Live Activity.
public struct LastEventSummary: Sendable, Hashable {
    /// The feed's event id.
    public var id: String
    /// What happened.
    public var kind: EventKind
    /// When it happened.
    public var occurredAt: Date
    /// The feed's description of the play.
    public var description: String?
    /// The team concerned.
    public var team: TeamSide?
    /// The player concerned.
    public var player: String?

    /// Creates a summary.
    public init(id: String, kind: EventKind, occurredAt: Date, description: String? = nil, team: TeamSide? = nil, player: String? = nil) {
        self.id = id
        self.kind = kind
        self.occurredAt = occurredAt
        self.description = description
        self.team = team
        self.player = player
    }

    /// The summary of `event`.
    public init(_ event: FeedEvent) {
        self.init(
            id: event.id, kind: event.kind, occurredAt: event.occurredAt,
            description: event.description, team: event.team, player: event.player
        )
    }
}
