import Foundation

/// The device side's settings: the app API's rate limits, kick-off timing and pacing, and
/// device expiry. Read from `SCORECAST_APP_*`, `SCORECAST_START_*` and `SCORECAST_DEVICE_*`.
public struct DeviceSettings: Sendable, Equatable {
    /// App API requests per device per minute, sustained.
    public var deviceRatePerMinute: Int
    /// App API requests per client address per minute, sustained.
    public var addressRatePerMinute: Int
    /// Requests at once above the sustained rates.
    public var rateBurst: Int
    /// Kick-off fan-out begins this long before a game's scheduled start.
    public var startLead: Duration
    /// Push-to-starts per second at most, per process.
    public var startsPerSecond: Int
    /// Push-to-starts claimed at once by the fan-out.
    public var startBatch: Int
    /// Devices not seen for this long are deleted.
    public var deviceTTL: Duration
    /// The fan-out looks for due kick-offs and work this often when nothing wakes it.
    public var pollInterval: Duration

    /// Creates settings; the defaults are those of `Configuration`.
    public init(
        deviceRatePerMinute: Int = 60, addressRatePerMinute: Int = 1_200, rateBurst: Int = 30,
        startLead: Duration = .seconds(5 * 60), startsPerSecond: Int = 20_000, startBatch: Int = 500,
        deviceTTL: Duration = .seconds(90 * 86_400), pollInterval: Duration = .seconds(1)
    ) {
        self.deviceRatePerMinute = deviceRatePerMinute
        self.addressRatePerMinute = addressRatePerMinute
        self.rateBurst = rateBurst
        self.startLead = startLead
        self.startsPerSecond = startsPerSecond
        self.startBatch = startBatch
        self.deviceTTL = deviceTTL
        self.pollInterval = pollInterval
    }

    /// Reads the variables, recording problems in `env`.
    static func load(_ env: inout EnvironmentReader) -> DeviceSettings {
        DeviceSettings(
            deviceRatePerMinute: env.integer("SCORECAST_APP_RATE_PER_MINUTE", default: 60, in: 1...100_000),
            addressRatePerMinute: env.integer("SCORECAST_APP_ADDRESS_RATE_PER_MINUTE", default: 1_200, in: 1...1_000_000),
            rateBurst: env.integer("SCORECAST_APP_RATE_BURST", default: 30, in: 1...10_000),
            startLead: .seconds(60 * env.integer("SCORECAST_START_LEAD_MINUTES", default: 5, in: 0...1_440)),
            startsPerSecond: env.integer("SCORECAST_START_RATE_PER_SECOND", default: 20_000, in: 1...1_000_000),
            startBatch: env.integer("SCORECAST_START_BATCH", default: 500, in: 1...10_000),
            deviceTTL: .seconds(86_400 * env.integer("SCORECAST_DEVICE_TTL_DAYS", default: 90, in: 1...3_650)),
            pollInterval: .milliseconds(env.integer("SCORECAST_DEVICE_POLL_MS", default: 1_000, in: 10...60_000)))
    }

    /// The documentation rows of the variables `load` reads.
    static let settings: [SettingDescription] = [
        .init(name: "SCORECAST_APP_RATE_PER_MINUTE", defaultValue: "60", help: "App API requests per device per minute (token bucket; 429 with Retry-After above it)."),
        .init(name: "SCORECAST_APP_ADDRESS_RATE_PER_MINUTE", defaultValue: "1200", help: "App API and game reads per client address per minute."),
        .init(name: "SCORECAST_APP_RATE_BURST", defaultValue: "30", help: "Requests at once above those rates."),
        .init(name: "SCORECAST_START_LEAD_MINUTES", defaultValue: "5", help: "Live Activities are started by push-to-start this long before a game's scheduled start (also on its start event)."),
        .init(name: "SCORECAST_START_RATE_PER_SECOND", defaultValue: "20000", help: "Most push-to-starts per second per process (the kick-off fan-out's pace)."),
        .init(name: "SCORECAST_START_BATCH", defaultValue: "500", help: "Push-to-starts the fan-out claims at once."),
        .init(name: "SCORECAST_DEVICE_TTL_DAYS", defaultValue: "90", help: "Devices silent this long are deleted with their follows and tokens."),
        .init(name: "SCORECAST_DEVICE_POLL_MS", defaultValue: "1000", help: "The device fan-out looks for due kick-offs and token updates this often."),
    ]
}
