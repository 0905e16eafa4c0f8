import APNsCore
import JSON
import ScorecastCore

/// What a channel's phones show after a send: its `aps.event` and `aps.content-state`, as a
/// 64-bit fingerprint (FNV-1a over their canonical JSON, so equal states give equal
/// fingerprints in every process and version). The alert, timestamp and dates are left out: a
/// send whose event and content-state equal the last accepted one's changes nothing on screen.
public struct ShownState: Sendable, Hashable {
    /// The fingerprint, as stored in `channels.last_shown`.
    public var fingerprint: Int64

    /// A state known by its stored fingerprint.
    public init(fingerprint: Int64) {
        self.fingerprint = fingerprint
    }

    /// What `payload` shows.
    public init(payload: LiveActivityPayload) {
        let shown: JSONValue = ["event": .string(payload.event.rawValue), "content-state": payload.contentState]
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (try? shown.encoded()) ?? [] {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        fingerprint = Int64(bitPattern: hash)
    }

    /// What the broadcast `body` shows, or `nil` when it is not a readable Live Activity payload.
    public init?(body: [UInt8]) {
        guard let parsed = try? JSONParser().parse(body), let payload = try? LiveActivityPayload(jsonValue: parsed) else {
            return nil
        }
        self.init(payload: payload)
    }
}
