import JSON
/// A device token the simulator knows: one that received Live Activity pushes, or one an admin
/// marked unregistered (`410 Unregistered`).
public struct SimulatorDeviceToken: Sendable, Equatable, Codable {
    /// The token, lowercase hex.
    public let token: String
    /// The app of its pushes (`nil` for a token only marked unregistered).
    public let bundleID: String?
    /// Live Activity pushes accepted for it.
    public let accepted: Int
    /// Of those, `event: start` (push-to-start), `update` and `end`.
    public let starts: Int
    public let updates: Int
    public let ends: Int
    /// The `aps.event` of the last accepted push.
    public let lastEvent: String?
    /// The `input-push-channel` of the last start, or `token` when it asked for
    /// `input-push-token`.
    public let lastStartInput: String?
    /// When it stopped being valid (UNIX milliseconds), if it did.
    public let unregisteredAt: Int?
}

/// What the simulator remembers per device token (bounded by `DeviceTokenLedger.capacity`).
struct DeviceTokenLedger: Sendable {
    struct Entry: Sendable {
        var bundleID: String
        var accepted = 0
        var starts = 0
        var updates = 0
        var ends = 0
        var lastEvent: String?
        var lastStartInput: String?
    }

    /// The most tokens remembered; pushes to further tokens are answered but not recorded.
    static let capacity = 2_000_000
    private(set) var entries: [String: Entry] = [:]

    /// What the ledger keeps of one push body: its event, and a start's input.
    struct Push: Sendable {
        var event: String?
        var startInput: String?

        /// Reads `body` (outside any lock: parsing is the costly part).
        init(body: [UInt8]) {
            let aps = (try? JSONParser().parse(body))?["aps"]
            event = aps?["event"]?.stringValue
            if event == "start" {
                startInput = aps?["input-push-channel"]?.stringValue ?? (aps?["input-push-token"] != nil ? "token" : nil)
            }
        }
    }

    /// Records an accepted Live Activity push to `token`.
    mutating func record(token: String, bundleID: String, push: Push) {
        guard entries[token] != nil || entries.count < Self.capacity else { return }
        var entry = entries[token] ?? Entry(bundleID: bundleID)
        entry.accepted += 1
        switch push.event {
        case "start":
            entry.starts += 1
            entry.lastStartInput = push.startInput
        case "update": entry.updates += 1
        case "end": entry.ends += 1
        default: break
        }
        entry.lastEvent = push.event
        entries[token] = entry
    }

    mutating func removeAll() { entries.removeAll() }
}
