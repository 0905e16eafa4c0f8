import Foundation
import ScorecastLogging
import Postgres
import ServiceBase

/// Part 6: kick-off fan-out. N devices (100k quick, 1M full) follow one game; `scorecast games
/// start-activities` records the kick-off and a worker-only `serve` plans a push-to-start for each,
/// chunk by chunk, and sends them to the simulator. Measured: push-to-starts acknowledged per second from the trigger to the last one,
/// against the APNs client's own rate in part 2 of the same run; `serve`'s RSS; Postgres bytes
/// per device (devices, follows and start records with their indexes).
struct KickoffBenchmark: Sendable {
    let devices: Int
    let folder: String
    let key: BenchKey
    let scorecast: String
    let serveEnvironment: [String: String]
    /// Extra settings of the embedded Postgres (`--postgres-setting`).
    let postgresSettings: [PostgresServerSetting]
    let logger: Logger
    /// Target: the fan-out at ≥ 0.7× the client's raw rate.
    static let target = 0.7

    func run(clientRate: Double?) async throws -> KickoffReport {
        let environment = try await EndToEndEnvironment.make(
            folder: folder, key: key, gameCount: 1, appCount: 1, scorecast: scorecast, postgresSettings: postgresSettings,
            logger: logger)
        do {
            let report = try await measure(environment, clientRate: clientRate)
            await environment.shutdown()
            return report
        } catch {
            await environment.shutdown()
            throw error
        }
    }

    private func measure(_ environment: EndToEndEnvironment, clientRate: Double?) async throws -> KickoffReport {
        let pool = environment.pool
        let game = environment.games[0]
        // Devices are written in bulk, not through the app API: the figure is the fan-out, and
        // N HTTP registrations would take longer than the kick-off itself.
        let registerStart = ContinuousClock.now
        guard let appID = try await pool.query("SELECT id FROM apps ORDER BY id LIMIT 1").first?.decode("id", as: Int64.self) else {
            throw BenchError("the kick-off environment has no app")
        }
        try await pool.execute("""
            INSERT INTO devices (app_id, install_id, push_to_start_token, os_version, supports_channels)
            SELECT \(appID), 'bench-' || g, lpad(to_hex(g), 64, '0'), '18.1', true FROM generate_series(1, \(devices)) g
            """)
        try await pool.execute("INSERT INTO follows (device_id, kind, value) SELECT id, 'game', \(game) FROM devices")
        try await pool.execute("ANALYZE devices, follows")
        let registerSeconds = Self.seconds(ContinuousClock.now - registerStart)
        logger.info("kick-off: devices registered", ["devices": String(devices), "seconds": String(format: "%.1f", registerSeconds)])
        // The environment's game starts now, within the lead time: `serve` would kick it off by
        // itself as soon as it runs, before the timed trigger. A day away, only the trigger does.
        try await pool.execute("UPDATE games SET starts_at = now() + interval '1 day' WHERE id = \(game)")

        let serve = try await ServeProcess.start(
            environment: environment, roles: "worker", label: "serve-kickoff",
            extraEnvironment: serveEnvironment.merging([Setting.devicePollMilliseconds.name: "100"]) { $1 })
        let rssBefore = ProcFS.sample(pid: serve.process.pid)?.rssBytes ?? 0
        var rssPeak = rssBefore
        let trigger = Date()
        let triggerClock = ContinuousClock.now
        try await EndToEndEnvironment.runCLI(
            scorecast, ["games", "start-activities", game], environment: environment.serveEnvironment(httpPort: 0, roles: "worker", extra: [:]),
            folder: folder, label: "start-activities")
        let triggerSeconds = Self.seconds(ContinuousClock.now - triggerClock)
        // Generous: a shared, loaded machine runs far below the target rate, and a partial figure says little.
        let deadline = ContinuousClock.now + .seconds(max(300, devices / 100))
        var open = devices
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .seconds(1))
            if let sample = ProcFS.sample(pid: serve.process.pid) { rssPeak = max(rssPeak, sample.rssBytes) }
            // Open: starts not yet answered, and the kick-off while its planning goes on.
            let row = try await pool.query("""
                SELECT (SELECT count(*) FROM activity_starts WHERE status IN ('pending', 'sending'))
                       + (SELECT count(*) FROM kickoffs WHERE planned_at IS NULL) AS n
                """).first
            open = Int(try row?.decode("n", as: Int64.self) ?? 0)
            if open == 0 { break }
        }
        let rssAfter = ProcFS.sample(pid: serve.process.pid)?.rssBytes ?? 0
        await serve.stop()
        guard open == 0 else { throw BenchError("kick-off: \(open) of \(devices) push-to-starts still open at the deadline") }

        let totals = try await pool.query("""
            SELECT count(*) FILTER (WHERE status = 'started') AS started, count(*) FILTER (WHERE status = 'failed') AS failed,
                   EXTRACT(EPOCH FROM min(finished_at))::float8 AS first, EXTRACT(EPOCH FROM max(finished_at))::float8 AS last
            FROM activity_starts WHERE game_id = \(game)
            """)
        let started = Int(try totals.first?.decode("started", as: Int64.self) ?? 0)
        let failed = Int(try totals.first?.decode("failed", as: Int64.self) ?? 0)
        let last = try totals.first?.decode("last", as: Double?.self) ?? trigger.timeIntervalSince1970
        let secondsToLast = last - trigger.timeIntervalSince1970
        let secondsToFirst = (try totals.first?.decode("first", as: Double?.self) ?? last) - trigger.timeIntervalSince1970
        let bytes = try await pool.query("""
            SELECT (pg_total_relation_size('devices') + pg_total_relation_size('follows')
                    + pg_total_relation_size('activity_starts'))::float8 AS bytes
            """).first?.decode("bytes", as: Double.self) ?? 0
        let rate = secondsToLast > 0 ? Double(started) / secondsToLast : 0
        let ratio = clientRate.map { rate / $0 }
        return KickoffReport(
            devices: devices, registerSeconds: registerSeconds, triggerSeconds: triggerSeconds, secondsToFirst: secondsToFirst,
            secondsToLast: secondsToLast,
            started: started, failed: failed, startsPerSecond: rate, clientRate: clientRate, ratio: ratio,
            serveRSSBeforeMiB: Double(rssBefore) / 1_048_576, serveRSSPeakMiB: Double(rssPeak) / 1_048_576,
            serveRSSAfterMiB: Double(rssAfter) / 1_048_576, postgresBytesPerDevice: bytes / Double(max(1, devices)),
            target: Self.target, met: ratio.map { $0 >= Self.target } ?? false)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Part 6's figures.
struct KickoffReport: Sendable, Codable {
    var devices: Int
    /// Writing the devices and their follows (bulk SQL).
    var registerSeconds: Double
    /// `scorecast games start-activities`: recording the kick-off (`serve` plans while it sends).
    var triggerSeconds: Double
    /// From the trigger to the first start's answer (what planning ahead of sending delays).
    var secondsToFirst: Double
    /// From the trigger to the last start's answer.
    var secondsToLast: Double
    var started: Int
    var failed: Int
    /// Started ÷ seconds to last.
    var startsPerSecond: Double
    /// Part 2's median rate of our client (device pushes), when part 2 ran.
    var clientRate: Double?
    var ratio: Double?
    var serveRSSBeforeMiB: Double
    var serveRSSPeakMiB: Double
    var serveRSSAfterMiB: Double
    /// devices + follows + activity_starts, with indexes and TOAST, per device.
    var postgresBytesPerDevice: Double
    var target: Double
    var met: Bool
}
