import Foundation

extension Date {
    /// This time moved by `duration`.
    public func adding(_ duration: Duration) -> Date {
        addingTimeInterval(duration.timeInterval)
    }

    /// The start of the minute containing this time (UTC, whole minutes since 1970).
    public var minuteStart: Date { flooring(toMultipleOf: 60) }

    /// The start of the `seconds`-long span containing this time, spans aligned to 1970-01-01.
    public func flooring(toMultipleOf seconds: Double) -> Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 / seconds).rounded(.down) * seconds)
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    public var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
