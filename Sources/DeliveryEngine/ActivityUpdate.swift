import APNsCore
import Foundation
import ScorecastCore

/// An activity's pending update on the token path (activities that listen to their own push
/// token), as a value: the one row `activity_outbox` keeps per token. Its alert, if any, rides
/// inside the payload: a device push carries one payload, and the token path keeps no alert
/// queue. Versions, leases and attempts stay with the store.
public struct ActivityUpdate: Sendable, Hashable {
    /// What will be sent.
    public var payload: LiveActivityPayload
    /// The priority it asks for, before the activity's budget may lower it.
    public var priority: BroadcastPriority
    /// Whether an alerting update went into it.
    public var alerting: Bool
    /// Whether it carries the final whistle (which may spend the budget's reserve).
    public var final: Bool
    /// When it may be sent.
    public var dueAt: Date

    /// Creates an update.
    public init(payload: LiveActivityPayload, priority: BroadcastPriority, alerting: Bool, final: Bool, dueAt: Date) {
        self.payload = payload
        self.priority = priority
        self.alerting = alerting
        self.final = final
        self.dueAt = dueAt
    }

    /// A freshly rendered `update`, due at `dueAt`; `final` when it is the final whistle's.
    public init(_ update: RenderedUpdate, final: Bool, dueAt: Date) {
        self.init(payload: update.payload, priority: update.priority, alerting: update.isAlerting, final: final, dueAt: dueAt)
    }
}
