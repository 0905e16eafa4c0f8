import APNsCore
import Foundation
import JSON
import ScorecastCore

/// An announcement waiting in a channel's outbox row: the alert of one alerting event.
///
/// Coalescing merges *state*, never announcements (design.md, delivery rules): the row keeps the
/// newest state once, and beside it a queue of these, oldest first. Each send carries the state
/// current at its send and the queue's head; a send APNs accepted removes its alert, by
/// ``key``, in the completion fenced on (channel, version, lease owner).
public struct QueuedAlert: Sendable, Hashable {
    /// What identifies the alert in its queue: the `events.id` of the event that raised it, as
    /// decimal text.
    public var key: String
    /// The alert to show.
    public var alert: LiveActivityAlert
    /// When it was queued (ingest): the start of its ingest-to-send latency.
    public var queuedAt: Date

    /// Creates a queued alert.
    public init(key: String, alert: LiveActivityAlert, queuedAt: Date) {
        self.key = key
        self.alert = alert
        self.queuedAt = queuedAt
    }

    /// The stored form, an element of `outbox.alerts`: `{"key", "alert", "at"}` (`at` in UNIX seconds).
    public var jsonValue: JSONValue {
        ["key": .string(key), "alert": alert.jsonValue, "at": .double(queuedAt.timeIntervalSince1970)]
    }

    /// Reads the stored form.
    public init(jsonValue: JSONValue) throws(StoredValueError) {
        func fail(_ problem: String) -> StoredValueError { StoredValueError(subject: "queued alert", problem: problem) }
        guard let members = jsonValue.objectValue else { throw fail("an element of outbox.alerts must be an object") }
        guard let key = members["key"]?.stringValue else { throw fail("key must be a string") }
        guard let alertValue = members["alert"] else { throw fail("alert is required") }
        guard let at = members["at"]?.doubleValue else { throw fail("at must be a number") }
        self.init(key: key, alert: try LiveActivityPayload.alert(from: alertValue, fail: fail), queuedAt: Date(timeIntervalSince1970: at))
    }

    /// The stored form of a whole queue (`outbox.alerts`), as JSON text.
    public static func encodedQueue(_ alerts: [QueuedAlert]) -> String {
        (try? JSONValue.array(alerts.map(\.jsonValue)).encodedString()) ?? "[]"
    }

    /// Reads a whole stored queue.
    public static func queue(from value: JSONValue) throws(StoredValueError) -> [QueuedAlert] {
        guard let elements = value.arrayValue else {
            throw StoredValueError(subject: "queued alert", problem: "outbox.alerts must be an array")
        }
        var alerts: [QueuedAlert] = []
        for element in elements { alerts.append(try QueuedAlert(jsonValue: element)) }
        return alerts
    }
}
