import JSON

/// Observations on Live Activity payloads that APNs accepts but a device would ignore or
/// mishandle (apns.md §3, §4, §7). Computed only when the admin API shows a request.
enum PayloadNotes {
    /// Keys only a push-to-start may carry.
    static let startOnlyKeys = ["attributes-type", "attributes", "input-push-token", "input-push-channel"]

    static func notes(for record: RequestRecord) -> [String] {
        guard record.method == "POST", !record.body.isEmpty,
              let route = APNsRoute.match(path: record.path, port: record.port) else { return [] }
        switch route {
        case .broadcast:
            return broadcastNotes(record.body)
        case .device:
            let pushType = record.headers.first { $0.name == "apns-push-type" }?.value
            return pushType == "liveactivity" ? deviceNotes(record.body) : []
        case .channels, .allChannels:
            return []
        }
    }

    static func broadcastNotes(_ body: [UInt8]) -> [String] {
        guard let payload = (try? JSONParser().parse(body)) else { return [] }
        guard let aps = payload["aps"], case .object = aps else { return ["no \"aps\" dictionary"] }
        var notes: [String] = []
        switch aps["event"]?.stringValue {
        case nil: notes.append("aps.event is missing")
        case "update", "end": break
        case "start": notes.append("aps.event is \"start\": a broadcast can only update or end an activity")
        case let other?: notes.append("aps.event \"\(other)\" is not update or end")
        }
        notes += timestampNotes(aps)
        if aps["event"]?.stringValue == "update" && aps["content-state"] == nil {
            notes.append("aps.content-state is missing on an update")
        }
        for key in startOnlyKeys where aps[key] != nil {
            notes.append("aps.\(key) belongs to push-to-start, not to a broadcast")
        }
        return notes
    }

    static func deviceNotes(_ body: [UInt8]) -> [String] {
        guard let payload = (try? JSONParser().parse(body)) else { return [] }
        guard let aps = payload["aps"], case .object = aps else { return ["no \"aps\" dictionary"] }
        var notes = timestampNotes(aps)
        if aps["event"]?.stringValue == "start" {
            for key in ["attributes-type", "attributes", "content-state", "alert"] where aps[key] == nil {
                notes.append("aps.\(key) is required to start an activity")
            }
        }
        return notes
    }

    private static func timestampNotes(_ aps: JSONValue) -> [String] {
        guard let timestamp = aps["timestamp"]?.doubleValue else { return ["aps.timestamp is missing or not a number"] }
        // UNIX seconds are ~1.7e9 today; milliseconds would be ~1.7e12.
        if timestamp > 1e11 { return ["aps.timestamp looks like milliseconds; APNs expects UNIX seconds"] }
        return []
    }
}
