import Foundation
import Postgres
import ScorecastCore
import Statistics
import Testing
@testable import scorecast_bench

@Suite("benchmark building blocks")
struct BenchPartsTests {
    /// h2load 1.52's summary, as printed by `h2load -n 40000 -c 1 -m 100 -t 1 …`.
    static let h2loadOutput = """
        starting benchmark...
        spawning thread #0: 1 total client(s). 40000 total requests
        TLS Protocol: TLSv1.3
        Application protocol: h2
        finished in 470.12ms, 85084.23 req/s, 3.24MB/s
        requests: 40000 total, 40000 started, 40000 done, 39990 succeeded, 10 failed, 4 errored, 0 timeout
        status codes: 39990 2xx, 0 3xx, 10 4xx, 0 5xx
        traffic: 1.52MB (1594176) total, 1.06MB (1110000) headers (space savings 93.31%), 0B (0) data
        """

    @Test("h2load's summary gives 2xx answers, failures and its own time")
    func parsesH2load() throws {
        let parsed = try H2Load.parse(Self.h2loadOutput)
        #expect(parsed.succeeded == 39_990)
        #expect(parsed.failed == 14)
        #expect(abs(parsed.seconds - 0.47012) < 1e-9)
        #expect(parsed.rate == 85_084.23)
    }

    @Test("output that is not h2load's summary is an error, not zeros")
    func refusesOtherOutput() {
        #expect(throws: BenchError.self) { try H2Load.parse("connect: Connection refused\n") }
    }

    @Test("the libcurl floor's one line gives 2xx answers, failures and its time; anything else is nothing")
    func parsesCurlFloor() throws {
        let floor = try #require(CurlFloor.parse("succeeded 39990 failed 10 seconds 2.500000\n"))
        #expect(floor.succeeded == 39_990 && floor.failed == 10 && floor.seconds == 2.5)
        #expect(CurlFloor.parse("usage: curl-floor …") == nil)
    }

    @Test("percentiles interpolate like the product's /v1/stats (PostgreSQL percentile_cont)")
    func percentiles() throws {
        // PostgreSQL: select percentile_cont(p) within group (order by v) from generate_series(1, 100) v;
        // → 50.5, 90.1, 99.01 (nearest rank would say 50, 90, 99).
        let values = (1...100).map(Double.init)
        let result = try #require(Percentiles(values.shuffled()))
        #expect(result.p50 == 50.5)
        #expect(abs(result.p90 - 90.1) < 1e-9)
        #expect(abs(result.p99 - 99.01) < 1e-9)
        #expect(result.max == 100)
        #expect(result.p99 == Percentile.value(of: values, at: 0.99))
        #expect(Percentiles([]) == nil)
        #expect([3.0, 1, 2].median == 2)
        #expect([4.0, 1, 2, 3].median == 2.5)
    }

    @Test("every event the feed posts is valid for the ingest validator")
    func feedEventsAreValid() throws {
        let plan = PostPlan(rate: 100, seconds: 1, games: ["bench-g00000", "bench-g00001"], runTag: "r1", seqBase: 1_000_000,
                            alertingShare: 0.3, apiKey: "unused", port: 1)
        var kinds: [String: Int] = [:]
        for index in 0..<100 {
            let body = EventPoster.eventBody(plan, index: index)
            let events = try FeedEventValidator().events(fromBody: body, now: Date())
            #expect(events.count == 1)
            let text = String(decoding: body, as: UTF8.self)
            kinds[text.contains("\"kind\":\"score\"") ? "score" : "clock", default: 0] += 1
        }
        #expect(kinds["score"] == 30)
        #expect(kinds["clock"] == 70)
    }

    @Test("every event the feed posts changes what the Live Activity shows, so each costs a send")
    func feedEventsAreAllSent() throws {
        let plan = PostPlan(rate: 100, seconds: 1, games: ["bench-g00000"], runTag: "r1", seqBase: 1_000_000,
                            alertingShare: 0.3, apiKey: "unused", port: 1)
        var state = GameState.initial
        let now = Date()
        for index in 0..<100 {
            let event = try #require(try FeedEventValidator().events(fromBody: EventPoster.eventBody(plan, index: index), now: now).first)
            state = try #require(state.applying(event, profile: .football).state)
            #expect(state.shownSeq == event.seq || PriorityPolicy().isAlerting(event), "event \(index) would send nothing")
        }
    }

    @Test("options: defaults, values, and errors that name the option")
    func options() throws {
        let defaults = try BenchOptions([])
        #expect(defaults.parts == [1, 2, 3, 4, 5, 6, 7])
        #expect(defaults.devices == nil)
        #expect(try BenchOptions(["--parts", "6", "--devices", "5000"]).devices == 5_000)
        #expect(defaults.quick == false)
        let chosen = try BenchOptions(["--quick", "--parts", "1,2", "--rates", "100,200", "--serve-env", "SCORECAST_WORKERS=8"])
        #expect(chosen.quick)
        #expect(chosen.parts == [1, 2])
        #expect(chosen.rates == [100, 200])
        #expect(defaults.profileRate == nil)
        #expect(try BenchOptions(["--parts", "3", "--profile-rate", "800"]).profileRate == 800)
        #expect(chosen.serveEnvironment == ["SCORECAST_WORKERS": "8"])
        #expect(defaults.memoryRate == 1000)
        #expect(try BenchOptions(["--parts", "4", "--memory-rate", "250"]).memoryRate == 250)
        for bad in [["--parts", "8"], ["--devices", "0"], ["--rates", "1,x"], ["--memory-rate", "0"], ["--memory-rate", "fast"], ["--profile-rate", "0"], ["--serve-env", "PATH=/"], ["--games"], ["--nope"]] {
            #expect(throws: BenchError.self) { try BenchOptions(bad) }
        }
    }

    @Test("options: the embedded Postgres's settings come from the environment, then --postgres-setting")
    func postgresSettings() throws {
        #expect(try BenchOptions([], environment: [:]).postgresSettings == [])
        let chosen = try BenchOptions(
            ["--postgres-setting", "commit_delay=0", "--postgres-setting", "wal_compression=off"],
            environment: ["SCORECAST_EMBEDDED_POSTGRES_SETTINGS": "commit_delay=100;shared_buffers=128MB"])
        #expect(chosen.postgresSettings.map(\.description) == ["commit_delay=100", "shared_buffers=128MB", "commit_delay=0", "wal_compression=off"])
        let refused = #expect(throws: BenchError.self) { try BenchOptions(["--postgres-setting", "port=1"], environment: [:]) }
        #expect(refused?.description.contains("--postgres-setting: the embedded Postgres's port is scorecast's own") == true, "\(String(describing: refused))")
        let malformed = #expect(throws: BenchError.self) {
            try BenchOptions([], environment: ["SCORECAST_EMBEDDED_POSTGRES_SETTINGS": "commit delay=0"])
        }
        #expect(malformed?.description.contains("SCORECAST_EMBEDDED_POSTGRES_SETTINGS: \"commit delay\" is not a Postgres setting name") == true,
                "\(String(describing: malformed))")
    }

    @Test("/proc gives this process's CPU time and resident memory")
    func procFS() throws {
        let sample = try #require(ProcFS.sampleSelf())
        #expect(sample.rssBytes > 1_000_000)
        #expect(sample.cpuSeconds >= 0)
        #expect(ProcFS.coreCount >= 1)
    }

    @Test("the Markdown report marks a missed target and shows what did not run")
    func markdown() {
        let figure = RateFigure(rate: 10_000, succeeded: 40_000, failed: 0, seconds: 4, clientCPUSeconds: 2, serverCPUSeconds: 1)
        let reference = RateFigure(rate: 80_000, succeeded: 40_000, failed: 0, seconds: 0.5, clientCPUSeconds: 0.15, serverCPUSeconds: 0.3)
        let floor = RateFigure(rate: 12_500, succeeded: 40_000, failed: 0, seconds: 3.2, clientCPUSeconds: 1.5, serverCPUSeconds: 0.9)
        let row = CeilingRow(connections: 1, streams: 100, requests: 40_000, ours: [figure], h2load: [reference], ratio: 0.125,
                             roundRatios: [0.125], h2loadCommand: "h2load …", curlFloor: [floor], floorRatio: 0.8,
                             curlFloorCommand: "curl-floor …")
        var report = BenchReport(started: "now", cores: 2, mode: "quick", command: "scorecast-bench run --quick", tools: [:],
                                 ceiling: CeilingReport(bodyBytes: 361, topology: "separate processes", rows: [row], target: 0.5, met: false),
                                 peer: nil, endToEnd: [], endToEndSetup: [:], memory: nil, scaling: [], profiles: [:], skipped: [:])
        report.skipped["3–5 end to end"] = "setup failed: example"
        let text = MarkdownReport.render(report)
        #expect(text.contains("| client / h2load, 1 connection | 0.12 (10,000 vs 80,000) | — (reported) | — |"))
        #expect(text.contains("| client / libcurl floor (C, multi interface), 1 connection | 0.80 (10,000 vs 12,500) | ≥ 0.9 | **no** |"))
        #expect(text.contains("- libcurl floor, 1 connection(s): `curl-floor …`"))
        #expect(text.contains("**3–5 end to end**: setup failed: example"))
    }

    @Test("part 2 reports the libcurl floor beside aioapns: what any libcurl client could reach, and ours against it")
    func peerFloor() {
        func figure(_ rate: Double) -> RateFigure {
            RateFigure(rate: rate, succeeded: 20_000, failed: 0, seconds: 20_000 / rate, clientCPUSeconds: 1, serverCPUSeconds: 1)
        }
        let peer = PeerReport(pushes: 20_000, concurrency: 100, connections: 1, bodyBytes: 370,
                              ours: [figure(9_000), figure(12_000), figure(11_000)],
                              aioapns: [figure(3_000), figure(4_000), figure(2_000)], aioapnsVersion: "2.2", ratio: 11_000.0 / 3_000,
                              target: 5, met: false, command: "python3 aioapns_peer.py …",
                              curlFloor: [figure(15_000), figure(12_500), figure(10_000)], floorRatio: 11_000.0 / 12_500,
                              floorOverAioapns: 12_500.0 / 3_000, curlFloorCommand: "curl-floor … /3/device/…")
        let report = BenchReport(started: "now", cores: 2, mode: "quick", command: "scorecast-bench run --quick --parts 2", tools: [:],
                                 ceiling: nil, peer: peer, endToEnd: [], endToEndSetup: [:], memory: nil, scaling: [],
                                 profiles: [:], skipped: [:])
        let text = MarkdownReport.render(report)
        #expect(text.contains("| client / aioapns (device pushes) | 3.67 (11,000 vs 3,000) | ≥ 5.00 | **no** |"))
        #expect(text.contains("| libcurl floor / aioapns (device pushes): the most a libcurl client reaches | 4.17 (12,500 vs 3,000) | — | — |"))
        #expect(text.contains("| client / libcurl floor (device pushes) | 0.88 (11,000 vs 12,500) | ≥ 0.9 | **no** |"))
        // Round 2: ours 12,000 against aioapns 4,000 and the floor 12,500.
        #expect(text.contains("| 2 | 12,000 | 4,000 | 12,500 | 3.00 | 0.96 |"))
        #expect(text.contains("| median | **11,000** | **3,000** | **12,500** | **3.67** | **0.88** |"))
        #expect(text.contains("- libcurl floor: `curl-floor … /3/device/…`"))
    }
}

@Suite("The search for the highest sustainable end-to-end rate")
struct SustainableRateSearchTests {
    @Test("halves the gap between the highest sustained and the lowest unsustained rate")
    func bisects() {
        var search = SustainableRateSearch(runs: [(500, true), (1000, true), (2000, false)])
        #expect(search.nextRate() == 1500)
        search.record(rate: 1500, sustained: true)
        #expect(search.nextRate() == 1750)
        search.record(rate: 1750, sustained: false)
        #expect(search.nextRate() == 1600, "within the step budget of three")
        search.record(rate: 1600, sustained: true)
        #expect(search.nextRate() == nil)
        #expect(search.highestSustained == 1600)
        #expect(search.lowestUnsustained == 1750)
    }

    @Test("nothing to search when every rate was sustained, or the gap is small")
    func stops() {
        var allSustained = SustainableRateSearch(runs: [(500, true), (1000, true)])
        #expect(allSustained.nextRate() == nil)
        var narrow = SustainableRateSearch(runs: [(1000, true), (1080, false)])
        #expect(narrow.nextRate() == nil)
        var noneSustained = SustainableRateSearch(runs: [(500, false), (1000, false)])
        #expect(noneSustained.nextRate() == 250)
    }
}
