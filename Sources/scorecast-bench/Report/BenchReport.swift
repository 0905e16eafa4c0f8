import Foundation

/// One throughput measurement: what a load generator achieved and what it cost.
struct RateFigure: Sendable, Codable {
    /// 2xx answers per second.
    var rate: Double
    /// 2xx answers.
    var succeeded: Int
    /// Requests without a 2xx (failures, errors, timeouts).
    var failed: Int
    /// Wall time, seconds.
    var seconds: Double
    /// CPU seconds of the load generator's process.
    var clientCPUSeconds: Double
    /// CPU seconds of the simulator process during the run.
    var serverCPUSeconds: Double
}

/// Part 1: one connection count, ours against h2load.
struct CeilingRow: Sendable, Codable {
    /// HTTP/2 connections.
    var connections: Int
    /// Concurrent streams per connection.
    var streams: Int
    /// Requests per run.
    var requests: Int
    /// Our client, one figure per round.
    var ours: [RateFigure]
    /// h2load, one figure per round.
    var h2load: [RateFigure]
    /// Median rate of ours / median rate of h2load.
    var ratio: Double
    /// ours/h2load of each round (same round, back to back).
    var roundRatios: [Double]
    /// The h2load command (token redacted).
    var h2loadCommand: String
    /// The libcurl floor (`Deploy/bench/curl_floor.c`), one figure per round.
    var curlFloor: [RateFigure] = []
    /// Median rate of ours / median rate of the libcurl floor (0 when it did not run).
    var floorRatio: Double = 0
    /// The floor's command (token redacted).
    var curlFloorCommand: String = ""
    /// Our client batched (`sendBroadcasts`), one figure per round.
    var oursBatched: [RateFigure] = []
    /// Broadcasts per batch in the batched run.
    var batchSize: Int = 0
    /// Concurrent batches in the batched run.
    var batchLanes: Int = 0
    /// Median rate of the batched run / median rate of the libcurl floor (0 when either did not run).
    var batchedFloorRatio: Double = 0
}

/// Part 1 as a whole.
struct CeilingReport: Sendable, Codable {
    /// Body size in bytes (the same file for both).
    var bodyBytes: Int
    /// Where the simulator ran.
    var topology: String
    /// One row per connection count.
    var rows: [CeilingRow]
    /// The target ratio.
    var target: Double
    /// Whether every row meets it.
    var met: Bool
}

/// Part 2: ours against aioapns.
struct PeerReport: Sendable, Codable {
    /// Pushes per run.
    var pushes: Int
    /// Concurrent requests in flight for both.
    var concurrency: Int
    /// Connections for both.
    var connections: Int
    /// Body size in bytes (identical bytes for both).
    var bodyBytes: Int
    /// Our client, one figure per round.
    var ours: [RateFigure]
    /// aioapns, one figure per round.
    var aioapns: [RateFigure]
    /// aioapns's version.
    var aioapnsVersion: String
    /// Median rate of ours / median rate of aioapns.
    var ratio: Double
    /// The target ratio.
    var target: Double
    /// Whether the ratio meets it.
    var met: Bool
    /// The aioapns command.
    var command: String
    /// The libcurl floor sending the same pushes, one figure per round.
    var curlFloor: [RateFigure]
    /// Median rate of ours / median rate of the floor.
    var floorRatio: Double
    /// Median rate of the floor / median rate of aioapns: the most a libcurl client reaches here.
    var floorOverAioapns: Double
    /// The floor's command (the provider token elided).
    var curlFloorCommand: String
}

/// CPU used by one process over a run.
struct ProcessCPU: Sendable, Codable {
    /// Process name.
    var name: String
    /// CPU seconds used during the run.
    var cpuSeconds: Double
    /// Share of one core (cpuSeconds / wall seconds).
    var coreShare: Double
}

/// Part 3 (and each step of parts 4–5): one fixed-rate end-to-end run.
struct EndToEndRun: Sendable, Codable {
    /// Target events per second (0: as fast as the poster can go).
    var targetEventsPerSecond: Int
    /// Events per second actually posted and accepted.
    var postedEventsPerSecond: Double
    /// Events accepted (202) during the window.
    var eventsAccepted: Int
    /// Ingest requests that failed (non-2xx or no answer).
    var ingestFailures: Int
    /// Window length, seconds.
    var seconds: Double
    /// Broadcasts acknowledged (2xx) per second during the window (deliveries rows).
    var broadcastsPerSecond: Double
    /// Broadcasts acknowledged in the window.
    var broadcasts: Int
    /// Deliveries that were not 2xx.
    var failedDeliveries: Int
    /// Ingest HTTP latency, ms.
    var ingestLatencyMs: Percentiles?
    /// Ingest-to-send latency of every send, ms (deliveries.ingest_to_send_ms); routine
    /// updates include their deliberate shaping delay (SCORECAST_ROUTINE_INTERVAL_MS).
    var ingestToSendMs: Percentiles?
    /// Share of outbox updates that replaced a still-pending one.
    var coalescedShare: Double?
    /// Outbox rows still pending when the window closed.
    var backlogAtEnd: Int
    /// Whether the system kept up (backlog bounded, posted ≥ 95 % of target).
    var sustained: Bool
    /// CPU per process.
    var cpu: [ProcessCPU]
    /// Processes running the worker role.
    var workerProcesses: Int
    /// Broadcasts per CPU-second of scorecast and Postgres together.
    var broadcastsPerServerCPUSecond: Double?
    /// Ingest-to-send latency of alerting sends (requested priority 10, sent at once), ms.
    var ingestToSendAlertingMs: Percentiles?
    /// Seconds the outbox took to drain after posting stopped.
    var drainSeconds: Double
    /// The largest delay of a scheduled event behind its time, ms (the feed could not keep up).
    var maxPostLagMs: Double
    /// The first ingest failure, if any.
    var firstIngestFailure: String?
    /// Outbox updates replaced by a newer one before they were sent (summed over the sends).
    var coalesced = 0
    /// Deliveries sent at priority 5 although priority 10 was asked (the channel's budget).
    var downgraded = 0
    /// Of the alerting sends' ingest→send: the wait until a worker claimed the row and planned
    /// the send (`deliveries.ingest_to_claim_ms`), ms.
    var alertingClaimWaitMs: Percentiles? = nil
    /// The alerting sends' APNs round trips (request written → answer), ms.
    var alertingAPNsMs: Percentiles? = nil
}

/// Part 4: memory of `scorecast serve`.
struct MemoryReport: Sendable, Codable {
    /// Events per second fed.
    var eventsPerSecond: Int
    /// Run length, seconds.
    var seconds: Double
    /// Warm-up excluded from the growth figure, seconds.
    var warmUpSeconds: Double
    /// RSS samples (seconds since start, MiB).
    var samples: [[Double]]
    /// RSS at the end of warm-up (median of the samples around it), MiB.
    var rssAfterWarmUpMiB: Double
    /// RSS at the end (median of the last samples), MiB.
    var rssAtEndMiB: Double
    /// Growth after warm-up, percent.
    var growthPercent: Double
    /// Heap-in-use samples from serve's `/metrics` (seconds since start, MiB).
    var heapSamples: [[Double]]
    /// Heap in use at the end of warm-up (median of the samples around it), MiB; `nil` when
    /// `/metrics` did not answer.
    var heapAfterWarmUpMiB: Double?
    /// Heap in use at the end (median of the last samples), MiB.
    var heapAtEndMiB: Double?
    /// Heap-in-use growth after warm-up, percent.
    var heapGrowthPercent: Double?
    /// What the two growths say together (`MemoryReading`): allocator retention or live objects.
    var reading: String
    /// The largest sample, MiB.
    var peakMiB: Double
    /// The run's end-to-end figures.
    var run: EndToEndRun
    /// Target growth, percent.
    var target: Double
    /// Whether growth is under target.
    var met: Bool
}

/// Part 5: one worker-process count.
struct ScalingRow: Sendable, Codable {
    /// Worker processes (`serve --roles worker`).
    var workerProcesses: Int
    /// The run at the highest rate tried.
    var run: EndToEndRun
}

/// Everything one benchmark run measured.
struct BenchReport: Sendable, Codable {
    /// When the run started (ISO 8601).
    var started: String
    /// Online cores.
    var cores: Int
    /// `--quick` or full.
    var mode: String
    /// The command that produced this report.
    var command: String
    /// Tool versions (h2load, aioapns, postgres).
    var tools: [String: String]
    /// Part 1.
    var ceiling: CeilingReport?
    /// Part 2.
    var peer: PeerReport?
    /// Part 3 runs by rate.
    var endToEnd: [EndToEndRun]
    /// Part 3 context: games, channels per game, Postgres settings.
    var endToEndSetup: [String: String]
    /// Part 4.
    var memory: MemoryReport?
    /// Part 5.
    var scaling: [ScalingRow]
    /// Part 6.
    var kickoff: KickoffReport? = nil
    /// Part 7.
    var saturday: SaturdayReport? = nil
    /// Profile evidence gathered for missed targets (tool, what it showed).
    var profiles: [String: String]
    /// Steps that could not run, with the reason.
    var skipped: [String: String]
    /// The 1-minute load average (/proc/loadavg) when each part started and ended: other work on
    /// the machine competes for its cores and depresses every absolute figure.
    var loadAverage: [String: String] = [:]
}
