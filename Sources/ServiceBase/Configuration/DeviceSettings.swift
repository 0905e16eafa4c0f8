import Foundation

/// The device side's settings: the app API's rate limits, kick-off timing and pacing, and
/// device expiry. Read from `SCORECAST_APP_*`, `SCORECAST_START_*` and `SCORECAST_DEVICE_*`.
package struct DeviceSettings: Sendable, Equatable {
    /// App API requests per device per minute, sustained.
    package var deviceRatePerMinute: Int
    /// App API requests per client address per minute, sustained.
    package var addressRatePerMinute: Int
    /// Requests at once above the sustained rates.
    package var rateBurst: Int
    /// Kick-off fan-out begins this long before a game's scheduled start.
    package var startLead: Duration
    /// Push-to-starts per second at most, per process.
    package var startsPerSecond: Int
    /// Push-to-starts claimed at once by the fan-out.
    package var startBatch: Int
    /// Claimed batches of push-to-starts on their way at once: the next claim, and the
    /// write-back of finished batches, overlap the sends of the others.
    package var startBatchesInFlight: Int
    /// Devices not seen for this long are deleted.
    package var deviceTTL: Duration
    /// The least time between the fan-out's rounds; between them it waits for work to fall
    /// due or a notification (``FanOutSchedule``).
    package var pollInterval: Duration

    /// Creates settings; the defaults are those of `Configuration`.
    package init(
        deviceRatePerMinute: Int = 60, addressRatePerMinute: Int = 1_200, rateBurst: Int = 30,
        startLead: Duration = .seconds(5 * 60), startsPerSecond: Int = 20_000, startBatch: Int = 500,
        startBatchesInFlight: Int = Setting.startBatchesInFlight.integerDefault,
        deviceTTL: Duration = .seconds(90 * 86_400), pollInterval: Duration = .seconds(1)
    ) {
        self.deviceRatePerMinute = deviceRatePerMinute
        self.addressRatePerMinute = addressRatePerMinute
        self.rateBurst = rateBurst
        self.startLead = startLead
        self.startsPerSecond = startsPerSecond
        self.startBatch = startBatch
        self.startBatchesInFlight = startBatchesInFlight
        self.deviceTTL = deviceTTL
        self.pollInterval = pollInterval
    }

    /// Reads the variables, recording problems in `env`.
    static func load(_ env: inout EnvironmentReader) -> DeviceSettings {
        DeviceSettings(
            deviceRatePerMinute: env.integer(.appRatePerMinute),
            addressRatePerMinute: env.integer(.appAddressRatePerMinute),
            rateBurst: env.integer(.appRateBurst),
            startLead: .seconds(60 * env.integer(.startLeadMinutes)),
            startsPerSecond: env.integer(.startRatePerSecond),
            startBatch: env.integer(.startBatch),
            startBatchesInFlight: env.integer(.startBatchesInFlight),
            deviceTTL: .seconds(86_400 * env.integer(.deviceTTLDays)),
            pollInterval: .milliseconds(env.integer(.devicePollMilliseconds)))
    }
}

extension Setting {
    // The device side: the app API, kick-off, device expiry.
    package static let appRatePerMinute = Setting("SCORECAST_APP_RATE_PER_MINUTE", .integer(default: 60, range: 1...100_000), "App API requests per device per minute (token bucket; 429 with Retry-After above it).")
    package static let appAddressRatePerMinute = Setting("SCORECAST_APP_ADDRESS_RATE_PER_MINUTE", .integer(default: 1_200, range: 1...1_000_000), "App API requests and game reads per client address per minute.")
    package static let appRateBurst = Setting("SCORECAST_APP_RATE_BURST", .integer(default: 30, range: 1...10_000), "Requests at once above those rates.")
    package static let startLeadMinutes = Setting("SCORECAST_START_LEAD_MINUTES", .integer(default: 5, range: 0...1_440), "Live Activities are started by push-to-start this long before a game's scheduled start (or on its start event).")
    package static let startRatePerSecond = Setting("SCORECAST_START_RATE_PER_SECOND", .integer(default: 20_000, range: 1...1_000_000), "Most push-to-starts per second per process (the kick-off fan-out's pace).")
    package static let startBatch = Setting("SCORECAST_START_BATCH", .integer(default: 500, range: 1...10_000), "Push-to-starts the fan-out plans and claims at once (one chunk of a kick-off's audience), and token-path updates it claims at once.")
    package static let startBatchesInFlight = Setting("SCORECAST_START_BATCHES_IN_FLIGHT", .integer(default: 4, range: 1...64), "Claimed batches of push-to-starts the fan-out keeps on their way at once (claims and write-backs overlap sends).")
    package static let deviceTTLDays = Setting("SCORECAST_DEVICE_TTL_DAYS", .integer(default: 90, range: 1...3_650), "Devices silent this long are deleted with their follows and tokens.")
    package static let devicePollMilliseconds = Setting("SCORECAST_DEVICE_POLL_MS", .integer(default: 1_000, range: 10...60_000), "Least time between the device fan-out's rounds; between them it waits for the next due time in the tables or a NOTIFY (game updates, a planned kick-off), at most 10 s.")

    /// The device side's settings, in documentation order (appended to `all`).
    static let devices: [Setting] = [
        appRatePerMinute, appAddressRatePerMinute, appRateBurst, startLeadMinutes, startRatePerSecond, startBatch,
        startBatchesInFlight, deviceTTLDays, devicePollMilliseconds,
    ]
}
