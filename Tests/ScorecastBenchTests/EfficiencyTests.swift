import Testing
@testable import scorecast_bench

@Suite("Broadcasts per server CPU-second, the efficiency column of every end-to-end row")
struct EfficiencyTests {
    /// CPU of one step as `EndToEndRunner` names it: two serve processes (the first one's APNs
    /// client thread apart, already inside its figure), Postgres, and the simulator and the
    /// feed, which are the load, not the server.
    static let cpu = [
        ProcessCPU(name: "serve0 (api,worker,poller)", cpuSeconds: 4.5, coreShare: 0.3),
        ProcessCPU(name: ProcessCPU.apnsClientName(serve: 0), cpuSeconds: 1.2, coreShare: 0.08),
        ProcessCPU(name: "serve1 (worker)", cpuSeconds: 1.5, coreShare: 0.1),
        ProcessCPU(name: "postgres", cpuSeconds: 9, coreShare: 0.6),
        ProcessCPU(name: "apns-sim", cpuSeconds: 6, coreShare: 0.4),
        ProcessCPU(name: "feed (bench)", cpuSeconds: 3, coreShare: 0.2),
    ]

    /// A 15 s step at `rate` events/s with this suite's CPU split; the alerting sends' p99, if given.
    static func run(_ rate: Int, broadcasts: Int, sustained: Bool = true, alertingP99: Double? = nil) -> EndToEndRun {
        EndToEndRun(
            targetEventsPerSecond: rate, postedEventsPerSecond: Double(rate), eventsAccepted: rate * 15, ingestFailures: 0,
            seconds: 15, broadcastsPerSecond: Double(broadcasts) / 15, broadcasts: broadcasts, failedDeliveries: 0,
            ingestLatencyMs: nil, ingestToSendMs: nil, coalescedShare: nil, backlogAtEnd: 0, sustained: sustained, cpu: cpu,
            workerProcesses: 2, broadcastsPerServerCPUSecond: EndToEndRunner.perCPUSecond(broadcasts, cpu),
            ingestToSendAlertingMs: alertingP99.map { Percentiles(count: 100, p50: $0 / 2, p90: $0, p95: $0, p99: $0, max: $0) },
            drainSeconds: 0, maxPostLagMs: 0, firstIngestFailure: nil)
    }

    /// The Markdown report of a quick run with these end-to-end steps alone.
    static func render(_ runs: [EndToEndRun]) -> String {
        MarkdownReport.render(BenchReport(
            started: "now", cores: 2, mode: "quick", command: "scorecast-bench run --quick", tools: [:], ceiling: nil, peer: nil,
            endToEnd: runs, endToEndSetup: [:], memory: nil, scaling: [], profiles: [:], skipped: [:]))
    }

    @Test("divides the broadcasts by serve's and Postgres' CPU seconds, leaving out the simulator and the feed")
    func arithmetic() throws {
        let perSecond = try #require(EndToEndRunner.perCPUSecond(30_000, Self.cpu))
        #expect(perSecond == 2_000, "30,000 broadcasts over 4.5 + 1.5 + 9 = 15 server CPU-seconds (the client thread is inside serve0's)")
        let withoutSecondServe = try #require(EndToEndRunner.perCPUSecond(27_000, Self.cpu.filter { $0.name != "serve1 (worker)" }))
        #expect(withoutSecondServe == 2_000)
    }

    @Test("splits the CPU per broadcast by process, and states what a target rate leaves of the cores")
    func perBroadcast() throws {
        let split = try #require(CPUPerBroadcast(broadcasts: 30_000, cpu: Self.cpu))
        #expect(split == CPUPerBroadcast(serve: 200, apnsClient: 40, postgres: 300, simulator: 200, feed: 100), "CPU-seconds × 10⁶ / 30,000")
        #expect(ProcessCPU.apnsClientName(serve: 1) == "apns-curl of serve1")
        #expect(ProcessCPU.Role(name: ProcessCPU.apnsClientName(serve: 1)) == .apnsClient)
        #expect(split.total == 800)
        #expect(CPUPerBroadcast(broadcasts: 0, cpu: Self.cpu) == nil)
        #expect(CPUPerBroadcast.budget(broadcastsPerSecond: 10_000, cores: 2) == 200)
        #expect(CPUPerBroadcast.budget(broadcastsPerSecond: 2_000, cores: 4) == 2_000)
    }

    @Test("no figure when the server used no CPU that could be read")
    func nothingMeasured() {
        #expect(EndToEndRunner.perCPUSecond(1_000, Self.cpu.filter { $0.name == "apns-sim" }) == nil)
        #expect(EndToEndRunner.perCPUSecond(1_000, []) == nil)
    }

    @Test("each row of the end-to-end table shows the figure")
    func shownInEveryRow() {
        let runs = [(500, 30_000), (1_000, 45_000)].map { rate, broadcasts in Self.run(rate, broadcasts: broadcasts) }
        let lines = Self.render(runs).split(separator: "\n")
        let header = lines.first { $0.hasPrefix("| events/s target |") }
        #expect(header?.contains("| broadcasts per server CPU-s |") == true)
        // The column after the CPU shares: 30,000 / 15 and 45,000 / 15 CPU-seconds.
        #expect(lines.contains { $0.hasPrefix("| 500 |") && $0.contains("apns-sim 40 %, feed (bench) 20 % | 2,000 |") })
        #expect(lines.contains { $0.hasPrefix("| 1000 |") && $0.contains("apns-sim 40 %, feed (bench) 20 % | 3,000 |") })
    }

    @Test("the targets table holds the highest sustained row to the project's targets: 10,000/s, 5,200 per server CPU-s, p99 ≤ 50 ms; at 1,000 events/s ≤ 20 ms")
    func targets() {
        // 1,000 events/s: 3,000 broadcasts/s, 3,000 per CPU-s; 2,000 sustained: 6,000/s, 6,000 per CPU-s; 3,000 not sustained.
        let text = Self.render([
            Self.run(1_000, broadcasts: 45_000, alertingP99: 18), Self.run(2_000, broadcasts: 90_000, alertingP99: 60),
            Self.run(3_000, broadcasts: 150_000, sustained: false, alertingP99: 10),
        ])
        #expect(text.contains("| broadcasts acknowledged/s, sustained | 6,000 | ≥ 10,000 | **no** |"))
        #expect(text.contains("| broadcasts per server CPU-second (serve + Postgres) there | 6,000 | ≥ 5,200 | yes |"))
        // 90,000 broadcasts: serve 6 s (its client thread 1.2 s), Postgres 9 s, simulator 6 s, feed 3 s; 2 cores at 10,000/s leave 200 µs.
        #expect(text.contains(
            "| CPU per broadcast there: serve (of which its APNs client's thread) + Postgres + simulator + feed (all on the same 2 cores) | 67 (13) + 100 + 67 + 33 = 267 µs | ≤ 200 µs (10,000/s) | **no** |"))
        #expect(text.contains("| ingest-to-send p99 there, alerting sends | 60.0 ms | ≤ 50 ms | **no** |"))
        #expect(text.contains("alerting sends (all sends: –) | 18.0 ms | ≤ 20 ms | yes |"))
    }
}
