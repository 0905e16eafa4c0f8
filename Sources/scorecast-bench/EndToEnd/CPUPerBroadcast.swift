/// The CPU each process of an end-to-end step spent per acknowledged broadcast, in
/// microseconds: where a step's CPU went, to set against what a target rate leaves of the
/// machine. Every process of the run (the server, Postgres, the simulator standing in for APNs,
/// the feed) shares the same cores, so a rate of R broadcasts/s on C cores leaves C / R
/// CPU-seconds per broadcast for all of them together.
struct CPUPerBroadcast: Sendable, Equatable {
    /// Every `scorecast serve` process together.
    var serve: Double
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
        serve = micros { $0.hasPrefix("serve") }
        postgres = micros { $0 == "postgres" }
        simulator = micros { $0 == "apns-sim" }
        feed = micros { $0.hasPrefix("feed") }
    }
}
