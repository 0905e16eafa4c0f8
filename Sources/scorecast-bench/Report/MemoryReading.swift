/// What part 4's two growth figures say together: RSS alone cannot tell a leak from malloc
/// keeping freed memory; heap in use (bytes malloc handed out and not had back) can.
enum MemoryReading {
    /// Growth below this many percent counts as flat.
    static let flatPercent = 3.0

    /// Growth from `start` to `end`, percent (0 when `start` is not positive).
    static func growthPercent(from start: Double, to end: Double) -> Double {
        start > 0 ? (end - start) / start * 100 : 0
    }

    /// The one-line reading of an RSS growth and a heap-in-use growth (`nil`: not measured).
    static func reading(rssGrowthPercent rss: Double, heapGrowthPercent heap: Double?) -> String {
        guard let heap else { return "heap in use was not read (serve's /metrics did not answer): RSS alone cannot tell a leak from allocator retention" }
        if heap >= flatPercent {
            return String(format: "heap in use grows (%+.1f %%): live objects grow (a leak or a growing cache)", heap)
        }
        if rss >= flatPercent {
            return String(format: "RSS grows (%+.1f %%) while heap in use is flat (%+.1f %%): allocator retention, not a leak", rss, heap)
        }
        return String(format: "RSS (%+.1f %%) and heap in use (%+.1f %%) are flat", rss, heap)
    }
}
