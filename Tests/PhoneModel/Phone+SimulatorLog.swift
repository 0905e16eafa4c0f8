import APNsSimulator
import Foundation

extension Phone {
    /// The broadcasts APNs accepted for channel `channelID` (status 200 on the send port), in the
    /// order they were accepted: what every phone subscribed to the channel receives. A push
    /// accepted while its answer was held or lost reached the phones all the same.
    public static func deliveries(in log: [SimulatorReceivedRequest], channelID: String) -> [SimulatorReceivedRequest] {
        log.filter { request in
            request.port == "send" && request.method == "POST" && request.path.hasPrefix("/4/broadcasts/apps/")
                && request.header("apns-channel-id") == channelID && request.status == 200
        }
        .sorted { $0.sequence < $1.sequence }
    }

    /// A phone whose activity listens to `channelID` (started with nothing shown), after
    /// receiving every broadcast of `log` that APNs accepted for it, each at the simulator's
    /// time of acceptance.
    public init(channelID: String, log: [SimulatorReceivedRequest]) {
        self.init()
        for request in Self.deliveries(in: log, channelID: channelID) {
            receive(Array(request.body.utf8), at: Date(timeIntervalSince1970: request.time))
        }
    }
}
