import Foundation

/// How long a rendered state stays fresh on the phone, per sport, so a phone that stops
/// receiving shows the data as outdated instead of lying: `stale-date` = the later of the
/// event's time and its arrival + this many seconds, and in a break (``SportProfile/breaks``)
/// the break's expected length on top, so half-time does not go stale before it ends. Counting
/// from arrival keeps a late event from shortening it.
public struct StalenessPolicy: Sendable, Hashable {
    /// Seconds of freshness for sports without an entry in ``bySport``. Default 15 minutes.
    public var defaultSeconds: Double
    /// Seconds of freshness by sport key (lower case).
    public var bySport: [String: Double]

    /// Creates a policy; sport keys are lower-cased.
    public init(defaultSeconds: Double = 900, bySport: [String: Double] = [:]) {
        self.defaultSeconds = defaultSeconds
        self.bySport = Dictionary(bySport.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// Seconds of freshness for `sport`.
    public func seconds(for sport: String) -> Double {
        bySport[sport.lowercased()] ?? defaultSeconds
    }

    /// The `stale-date` (UNIX seconds) of a state that happened at `occurredAt`, reached the
    /// server at `receivedAt` (when known), in `period`.
    public func staleDate(occurredAt: Date, receivedAt: Date? = nil, sport: String, period: String? = nil) -> Int {
        let base = max(occurredAt, receivedAt ?? occurredAt)
        let breakLength = SportProfile.for(sport).breakLength(of: period) ?? 0
        return Int((base.timeIntervalSince1970 + seconds(for: sport) + breakLength).rounded(.down))
    }
}
