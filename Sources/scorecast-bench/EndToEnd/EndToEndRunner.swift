import APNs
import Foundation
import ScorecastLogging
import Postgres

/// One fixed-rate end-to-end run: the feed posts for the window while CPU (and optionally memory)
/// is sampled; afterwards the outbox drains and the figures are read from `deliveries`.
struct EndToEndRunner {
    let environment: EndToEndEnvironment
    let logger: Logger
    /// Share of alerting events.
    var alertingShare: Double

    /// Runs `rate` events/s for `seconds` against `serves` (the first one runs the API).
    func run(rate: Int, seconds: Double, serves: [ServeProcess], runTag: String, seqBase: Int,
             sampleMemoryOf memoryOf: ServeProcess? = nil) async throws -> (EndToEndRun, [MemorySample]) {
        try await run(targetRate: rate, serves: serves, sampleMemoryOf: memoryOf) { port in
            PostPlan(rate: rate, seconds: seconds, games: environment.games, runTag: runTag, seqBase: seqBase,
                     alertingShare: alertingShare, apiKey: environment.apiKey, port: port).schedule
        }
    }

    /// Posts the schedule `feed` makes for the API's port against `serves`, measuring as `run`
    /// does; `targetRate` (events/s) is what "sustained" compares the posted rate with.
    func run(targetRate rate: Int, serves: [ServeProcess], sampleMemoryOf memoryOf: ServeProcess? = nil,
             feed: (_ port: Int) -> PostSchedule) async throws -> (EndToEndRun, [MemorySample]) {
        guard let api = serves.first(where: { $0.httpPort > 0 }) else { throw BenchError("no serve process runs the API") }
        _ = try await waitForDrain(limit: .seconds(60))
        let postmaster = await environment.postmasterPID()
        let before = cpuSamples(serves: serves, postmaster: postmaster)
        let windowStart = try await databaseClock()
        let plan = feed(api.httpPort)

        let memoryTask: Task<[MemorySample], Never>? = memoryOf.map { serve in Task { await MemorySampler.run(serve) } }
        let posted = await EventPoster.run(plan)
        try environment.simulator.checkAlive(during: "the \(rate) events/s run")
        memoryTask?.cancel()
        let memory = await memoryTask?.value ?? []
        let windowEnd = try await databaseClock()
        let after = cpuSamples(serves: serves, postmaster: postmaster)
        let backlog = try await overdueBacklog()
        let drainStarted = ContinuousClock.now
        let drained = try await waitForDrain(limit: .seconds(30))
        let drainSeconds = (ContinuousClock.now - drainStarted).seconds
        let drainEnd = try await databaseClock()

        let window = windowEnd - windowStart
        let counts = try await environment.pool.query("""
            SELECT count(*) FILTER (WHERE outcome = 'sent') AS sent,
                   count(*) FILTER (WHERE outcome <> 'sent') AS unsent,
                   coalesce(sum(coalesced) FILTER (WHERE outcome = 'sent'), 0)::bigint AS coalesced,
                   count(*) FILTER (WHERE downgraded) AS downgraded
            FROM deliveries WHERE sent_at >= to_timestamp(\(windowStart)) AND sent_at < to_timestamp(\(windowEnd))
            """).first
        let sent = try counts?.decode("sent", as: Int.self) ?? 0
        let unsent = try counts?.decode("unsent", as: Int.self) ?? 0
        let coalesced = try counts?.decode("coalesced", as: Int.self) ?? 0
        let downgraded = try counts?.decode("downgraded", as: Int.self) ?? 0
        let latencyAll = try await latency(from: windowStart, to: drainEnd, alertingOnly: false)
        let latencyAlerting = try await latency(from: windowStart, to: drainEnd, alertingOnly: true)
        let alertingClaimWait = try await latency(from: windowStart, to: drainEnd, alertingOnly: true, of: "ingest_to_claim_ms")
        let alertingAPNs = try await latency(from: windowStart, to: drainEnd, alertingOnly: true, of: "apns_latency_ms")

        var cpu: [ProcessCPU] = []
        // What appeared during the window (a serve's APNs client thread starts with its first
        // send) spent all its CPU inside it.
        for (name, end) in after.sorted(by: { $0.key < $1.key }) {
            let start = before[name] ?? 0
            cpu.append(ProcessCPU(name: name, cpuSeconds: end - start, coreShare: (end - start) / posted.seconds))
        }
        let postedRate = Double(posted.accepted + posted.notApplied) / posted.seconds
        let sustained = postedRate >= 0.95 * Double(rate) && posted.failures == 0 && drained
            && backlog <= max(20, environment.channels / 100) && posted.maxLagMilliseconds < 1000
        let result = EndToEndRun(
            targetEventsPerSecond: rate, postedEventsPerSecond: postedRate, eventsAccepted: posted.accepted,
            ingestFailures: posted.failures, seconds: window, broadcastsPerSecond: window > 0 ? Double(sent) / window : 0,
            broadcasts: sent, failedDeliveries: unsent, ingestLatencyMs: Percentiles(posted.latencies),
            ingestToSendMs: latencyAll, coalescedShare: sent + coalesced > 0 ? Double(coalesced) / Double(sent + coalesced) : nil,
            backlogAtEnd: backlog, sustained: sustained, cpu: cpu, workerProcesses: serves.filter { $0.roles.contains("worker") }.count,
            broadcastsPerServerCPUSecond: Self.perCPUSecond(sent, cpu),
            ingestToSendAlertingMs: latencyAlerting, drainSeconds: drainSeconds, maxPostLagMs: posted.maxLagMilliseconds,
            firstIngestFailure: posted.firstFailure, coalesced: coalesced, downgraded: downgraded,
            alertingClaimWaitMs: alertingClaimWait, alertingAPNsMs: alertingAPNs)
        logger.info("end-to-end run", [
            "rate": String(rate), "workers": String(result.workerProcesses), "posted_per_s": String(Int(postedRate)),
            "broadcasts_per_s": String(Int(result.broadcastsPerSecond)),
            "ingest_p99_ms": String(format: "%.1f", result.ingestLatencyMs?.p99 ?? 0),
            "i2s_alerting_p99_ms": String(format: "%.1f", latencyAlerting?.p99 ?? 0),
            "backlog": String(backlog), "sustained": String(sustained), "failures": String(posted.failures)])
        return (result, memory)
    }

    /// Broadcasts per CPU-second of the server side (every serve process and Postgres): an
    /// efficiency figure that does not depend on how much of the machine the run was given.
    static func perCPUSecond(_ broadcasts: Int, _ cpu: [ProcessCPU]) -> Double? {
        let seconds = cpu.filter { ProcessCPU.Role(name: $0.name)?.isServer == true }.map(\.cpuSeconds).reduce(0, +)
        return seconds > 0 ? Double(broadcasts) / seconds : nil
    }

    /// CPU seconds so far of each serve process (and of its APNs client's curl thread), Postgres
    /// (postmaster and backends), the simulator and this process (the feed).
    private func cpuSamples(serves: [ServeProcess], postmaster: pid_t?) -> [String: Double] {
        var samples: [String: Double] = [:]
        for (index, serve) in serves.enumerated() {
            samples["serve\(index) (\(serve.roles))"] = ProcFS.sample(pid: serve.process.pid)?.cpuSeconds
            // Already inside serve's figure; kept apart to show what the APNs client costs.
            samples[ProcessCPU.apnsClientName(serve: index)] = ProcFS.threadsCPUSeconds(pid: serve.process.pid, named: APNsClient.threadName)
        }
        if let postmaster {
            let pids = [postmaster] + ProcFS.children(of: postmaster)
            samples["postgres"] = pids.compactMap { ProcFS.sample(pid: $0)?.cpuSeconds }.reduce(0, +)
        }
        samples["apns-sim"] = ProcFS.sample(pid: environment.simulator.process.pid)?.cpuSeconds
        samples["feed (bench)"] = ProcFS.sampleSelf()?.cpuSeconds
        return samples
    }

    /// Percentiles of one latency column of `deliveries` (`ingest_to_send_ms` unless named:
    /// `ingest_to_claim_ms`, `apns_latency_ms`) for sends between two database times.
    private func latency(
        from start: Double, to end: Double, alertingOnly: Bool, of column: String = "ingest_to_send_ms"
    ) async throws -> Percentiles? {
        precondition(["ingest_to_send_ms", "ingest_to_claim_ms", "apns_latency_ms"].contains(column), "not a latency column: \(column)")
        let filter = alertingOnly ? "AND requested_priority = 10" : ""
        guard let row = try await environment.pool.query("""
            SELECT count(*) AS n,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY \(unsafeSQL: column)) AS p50,
                   percentile_cont(0.9) WITHIN GROUP (ORDER BY \(unsafeSQL: column)) AS p90,
                   percentile_cont(0.95) WITHIN GROUP (ORDER BY \(unsafeSQL: column)) AS p95,
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY \(unsafeSQL: column)) AS p99,
                   max(\(unsafeSQL: column)) AS worst
            FROM deliveries
            WHERE outcome = 'sent' AND \(unsafeSQL: column) IS NOT NULL
              AND sent_at >= to_timestamp(\(start)) AND sent_at < to_timestamp(\(end)) \(unsafeSQL: filter)
            """).first else { return nil }
        let count = try row.decode("n", as: Int.self)
        guard count > 0 else { return nil }
        return Percentiles(count: count, p50: try row.decode("p50", as: Double.self), p90: try row.decode("p90", as: Double.self),
                           p95: try row.decode("p95", as: Double.self),
                           p99: try row.decode("p99", as: Double.self), max: try row.decode("worst", as: Double.self))
    }

    /// The database's clock, UNIX seconds (every window is measured on it, like sent_at).
    private func databaseClock() async throws -> Double {
        guard let row = try await environment.pool.query("SELECT extract(epoch FROM clock_timestamp())::float8 AS now").first else {
            throw BenchError("the database did not tell its time")
        }
        return try row.decode("now", as: Double.self)
    }

    /// Outbox rows that were due more than a second ago and are still there.
    private func overdueBacklog() async throws -> Int {
        let row = try await environment.pool.query(
            "SELECT count(*) AS n FROM outbox WHERE greatest(due_at, coalesce(not_before, due_at)) < now() - interval '1 second'").first
        return try row?.decode("n", as: Int.self) ?? 0
    }

    /// Waits until no outbox row is due (shaped rows due later do not count); false on timeout.
    private func waitForDrain(limit: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let row = try await environment.pool.query(
                "SELECT count(*) AS n FROM outbox WHERE greatest(due_at, coalesce(not_before, due_at)) <= now()").first
            if try row?.decode("n", as: Int.self) ?? 0 == 0 { return true }
            try await Task.sleep(for: .milliseconds(200))
        }
        return false
    }
}
