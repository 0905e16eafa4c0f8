import Testing
@testable import scorecast_bench

@Suite struct RenderBenchmarkTests {
    @Test func everyPlannedEventBecomesOneUpdatePerChannel() throws {
        let lines = try RenderBenchmark(arguments: ["--rounds", "12"]).run()
        #expect(lines.count == 3)
        #expect(lines[0] == "render benchmark: 12 rounds of 10 games × 4 channels (480 channel updates)")
        #expect(lines[1].hasPrefix("plan: median "))
        #expect(lines[2].hasPrefix("render alone: median "))
    }

    @Test func optionsAreChecked() throws {
        #expect(try RenderBenchmark(arguments: []).rounds == 2000)
        #expect(try RenderBenchmark(arguments: ["--quick"]).rounds == 200)
        #expect(throws: (any Error).self) { try RenderBenchmark(arguments: ["--rounds", "0"]) }
        #expect(throws: (any Error).self) { try RenderBenchmark(arguments: ["extra"]) }
    }
}
