import CurlHTTP
import Foundation
import ScorecastCore
import Synchronization

/// What a feed should post: `rate` events per second for `seconds`, spread over `games`.
struct PostPlan: Sendable {
    /// Events per second (open loop: each event has a scheduled time).
    var rate: Int
    /// How long, seconds.
    var seconds: Double
    /// The games' ids.
    var games: [String]
    /// Makes event ids unique across runs.
    var runTag: String
    /// Added to every seq so that later runs are newer than earlier ones.
    var seqBase: Int
    /// Share of alerting events (`score`); the rest are routine (`clock`).
    var alertingShare: Double
    /// The feed's API key.
    var apiKey: String
    /// The HTTP port of `scorecast serve`.
    var port: Int

    /// Events in the run.
    var total: Int { Int(Double(rate) * seconds) }

    /// The plan as a schedule: event i due at i/rate, games in turn.
    var schedule: PostSchedule {
        let plan = self
        // Enough concurrent feeds to keep the schedule at ~100 ms per request; bounded.
        return PostSchedule(count: total, seconds: seconds, lanes: max(16, min(128, rate / 8)), apiKey: apiKey, port: port,
                            due: { Double($0) / Double(plan.rate) }, body: { EventPoster.eventBody(plan, index: $0) })
    }
}

/// Any feed's timetable: `count` events, event i due `due(i)` seconds after the start (never
/// decreasing in i) with the body `body(i)`, posted by `lanes` threads within `seconds`.
struct PostSchedule: Sendable {
    /// Events in the schedule.
    var count: Int
    /// The window: nothing is sent after it closes, seconds.
    var seconds: Double
    /// Threads posting (event i goes to lane i % lanes).
    var lanes: Int
    /// The feed's API key.
    var apiKey: String
    /// The HTTP port of `scorecast serve`.
    var port: Int
    /// When event i is due, seconds after the start.
    var due: @Sendable (Int) -> Double
    /// Event i's JSON body.
    var body: @Sendable (Int) -> [UInt8]
}

/// What the feed saw.
struct PostResult: Sendable {
    /// Requests answered 202 whose event was accepted.
    var accepted = 0
    /// Answered 202 but stale or duplicate.
    var notApplied = 0
    /// Non-202 answers or no answer.
    var failures = 0
    /// The first failure, for the report.
    var firstFailure: String?
    /// Request latencies, ms.
    var latencies: [Double] = []
    /// The largest delay between an event's scheduled time and its send, ms.
    var maxLagMilliseconds = 0.0
    /// Wall time from the first scheduled send to the last answer, seconds.
    var seconds = 0.0

    mutating func merge(_ other: PostResult) {
        accepted += other.accepted
        notApplied += other.notApplied
        failures += other.failures
        firstFailure = firstFailure ?? other.firstFailure
        latencies += other.latencies
        maxLagMilliseconds = max(maxLagMilliseconds, other.maxLagMilliseconds)
    }
}

/// A sports feed: one event per `POST /v1/events` over keep-alive connections, each on a thread
/// of its own (blocking sockets, off the cooperative pool). Open loop: event i is due at
/// start + due(i); a thread that falls behind sends at once and the lag is recorded; nothing is
/// sent after the window closes.
enum EventPoster {
    /// Posts the schedule and returns what happened.
    static func run(_ plan: PostSchedule) async -> PostResult {
        let threads = max(1, plan.lanes)
        let results = Mutex(PostResult())
        let start = DispatchTime.now().uptimeNanoseconds + 50_000_000
        return await withCheckedContinuation { continuation in
            let group = DispatchGroup()
            for thread in 0..<threads {
                group.enter()
                Thread.detachNewThread {
                    let own = postLane(plan, lane: thread, lanes: threads, start: start)
                    results.withLock { $0.merge(own) }
                    group.leave()
                }
            }
            group.notify(queue: .global()) {
                var merged = results.withLock { $0 }
                merged.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                continuation.resume(returning: merged)
            }
        }
    }

    private static func postLane(_ plan: PostSchedule, lane: Int, lanes: Int, start: UInt64) -> PostResult {
        var result = PostResult()
        result.latencies.reserveCapacity(plan.count / lanes + 1)
        // One keep-alive connection per lane (the project's HTTP client, confined to this thread).
        var connection: CurlHTTPConnection?
        let headers: [(name: String, value: String)] = [("Authorization", "Bearer \(plan.apiKey)"), ("Content-Type", "application/json")]
        let url = "http://127.0.0.1:\(plan.port)/v1/events"
        // The window is bounded in time: events still unsent when it closes are never sent
        // (a server that cannot keep up shows as a posted rate below the target).
        let closes = start + UInt64(plan.seconds * 1e9)
        var index = lane
        while index < plan.count && DispatchTime.now().uptimeNanoseconds < closes {
            let due = start + UInt64(plan.due(index) * 1e9)
            let now = DispatchTime.now().uptimeNanoseconds
            if now < due {
                var pause = timespec(tv_sec: Int((due - now) / 1_000_000_000), tv_nsec: Int((due - now) % 1_000_000_000))
                nanosleep(&pause, nil)
            } else {
                result.maxLagMilliseconds = max(result.maxLagMilliseconds, Double(now - due) / 1e6)
            }
            let body = plan.body(index)
            let request = CurlHTTPRequest(method: "POST", url: url, headers: headers, body: body)
            let sentAt = DispatchTime.now().uptimeNanoseconds
            do {
                if connection == nil { connection = try CurlHTTPConnection(timeout: .seconds(10)) }
                guard let open = connection else { throw BenchError("no connection") }
                let response = try open.perform(request)
                let (status, answer) = (response.status, response.body)
                result.latencies.append(Double(DispatchTime.now().uptimeNanoseconds - sentAt) / 1e6)
                if status == 202 {
                    if String(decoding: answer, as: UTF8.self).contains("\"accepted\":1") {
                        result.accepted += 1
                    } else {
                        result.notApplied += 1
                    }
                } else {
                    result.failures += 1
                    if result.firstFailure == nil {
                        result.firstFailure = "HTTP \(status): \(String(decoding: answer.prefix(300), as: UTF8.self))"
                    }
                }
            } catch {
                connection = nil
                result.failures += 1
                if result.firstFailure == nil { result.firstFailure = "\(error)" }
            }
            index += lanes
        }
        return result
    }

    /// Event `index` of the plan: games in turn, seq rising per game, a share of goals.
    static func eventBody(_ plan: PostPlan, index: Int) -> [UInt8] {
        let game = plan.games[index % plan.games.count]
        let round = index / plan.games.count
        let seq = plan.seqBase + round + 1
        let alerting = Double(index % 100) < plan.alertingShare * 100
        let minute = round % 90
        let kind = alerting ? "score" : "clock"
        let scoreboard = alerting
            ? #"{"home":\#(round / 2 % 1000),"away":\#((round + 1) / 2 % 1000),"clock":"\#(minute)'"}"#
            // A tick alone is run by the phone and sends nothing: the routine event also changes
            // a shown value, so every posted event still costs one update.
            : #"{"clock":"\#(minute)'","extra":{"round":\#(round)}}"#
        let text = #"{"id":"\#(plan.runTag)-\#(index)","game":"\#(game)","seq":\#(seq),"occurredAt":"\#(RFC3339.format(Date(), includeFraction: true))","kind":"\#(kind)","scoreboard":\#(scoreboard)}"#
        return Array(text.utf8)
    }
}
