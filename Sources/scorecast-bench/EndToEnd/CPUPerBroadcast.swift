import APNs

/// The CPU each process of an end-to-end step spent per acknowledged broadcast, in
/// microseconds: where a step's CPU went, to set against what a target rate leaves of the
/// machine. Every process of the run (the server, Postgres, the simulator standing in for APNs,
/// the feed) shares the same cores, so a rate of R broadcasts/s on C cores leaves C / R
/// CPU-seconds per broadcast for all of them together.
struct CPUPerBroadcast: Sendable, Equatable {
    /// Every `scorecast serve` process together.
    var serve: Double
    /// Of `serve`: the APNs clients' curl threads (libcurl and the transport's own work).
    var apnsClient: Double = 0
    var postgres: Double
    var simulator: Double
    /// The benchmark itself, posting the events.
    var feed: Double

    /// All four together.
    var total: Double { serve + postgres + simulator + feed }

    /// The CPU per broadcast, in microseconds, that `rate` broadcasts a second leave on `cores` cores.
    static func budget(broadcastsPerSecond rate: Double, cores: Int) -> Double {
        Double(cores) * 1_000_000 / rate
    }
}

extension CPUPerBroadcast {
    /// The split of `cpu` (as `EndToEndRunner` names the processes) over `broadcasts`; `nil`
    /// when nothing was acknowledged.
    init?(broadcasts: Int, cpu: [ProcessCPU]) {
        guard broadcasts > 0 else { return nil }
        func micros(_ include: (String) -> Bool) -> Double {
            cpu.filter { include($0.name) }.map(\.cpuSeconds).reduce(0, +) * 1_000_000 / Double(broadcasts)
        }
        serve = micros { ProcessCPU.Role(name: $0) == .serve }
        apnsClient = micros { ProcessCPU.Role(name: $0) == .apnsClient }
        postgres = micros { ProcessCPU.Role(name: $0) == .postgres }
        simulator = micros { ProcessCPU.Role(name: $0) == .simulator }
        feed = micros { ProcessCPU.Role(name: $0) == .feed }
    }
}

extension ProcessCPU {
    /// What a process of an end-to-end step is, read from the name `EndToEndRunner` gives it.
    enum Role: Sendable {
        case serve, postgres, simulator, feed
        /// A serve process's APNs client thread: part of that serve's CPU, shown apart.
        case apnsClient

        init?(name: String) {
            if name.hasPrefix(APNsClient.threadName) {
                self = .apnsClient
            } else if name.hasPrefix("serve") {
                self = .serve
            } else if name == "postgres" {
                self = .postgres
            } else if name == "apns-sim" {
                self = .simulator
            } else if name.hasPrefix("feed") {
                self = .feed
            } else {
                return nil
            }
        }

        /// The server side, whose CPU the efficiency figures count (the simulator and the feed
        /// are the load; the APNs client is counted in its serve).
        var isServer: Bool { self == .serve || self == .postgres }
    }

    /// The name of serve process `index`'s APNs client thread in a step's CPU list.
    static func apnsClientName(serve index: Int) -> String { "\(APNsClient.threadName) of serve\(index)" }
}
