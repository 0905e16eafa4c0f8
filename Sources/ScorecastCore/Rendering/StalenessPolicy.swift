import Foundation

/// How long a rendered state stays fresh on the phone, per sport: `stale-date` = event time +
/// this many seconds, so a phone that stops receiving shows the data as outdated instead of lying.
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

    /// The `stale-date` (UNIX seconds) of a state that happened at `occurredAt`.
    public func staleDate(occurredAt: Date, sport: String) -> Int {
        Int((occurredAt.timeIntervalSince1970 + seconds(for: sport)).rounded(.down))
    }
}
