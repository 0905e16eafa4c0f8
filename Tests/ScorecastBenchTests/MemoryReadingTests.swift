import Testing

@testable import scorecast_bench

/// Part 4's reading of RSS and heap-in-use growth, and the heap figure read from `/metrics`.
@Suite struct MemoryReadingTests {
    @Test("RSS growing with heap in use flat is allocator retention; heap in use growing is live objects")
    func reading() {
        #expect(MemoryReading.growthPercent(from: 200, to: 217.4) > 8.69 && MemoryReading.growthPercent(from: 200, to: 217.4) < 8.71)
        #expect(MemoryReading.growthPercent(from: 0, to: 10) == 0)
        let retention = MemoryReading.reading(rssGrowthPercent: 8.7, heapGrowthPercent: 0.4)
        #expect(retention == "RSS grows (+8.7 %) while heap in use is flat (+0.4 %): allocator retention, not a leak")
        let live = MemoryReading.reading(rssGrowthPercent: 8.7, heapGrowthPercent: 12.5)
        #expect(live == "heap in use grows (+12.5 %): live objects grow (a leak or a growing cache)")
        #expect(MemoryReading.reading(rssGrowthPercent: 1.0, heapGrowthPercent: -0.5) == "RSS (+1.0 %) and heap in use (-0.5 %) are flat")
        #expect(MemoryReading.reading(rssGrowthPercent: 8.7, heapGrowthPercent: nil).hasPrefix("heap in use was not read"))
    }

    @Test("the heap gauge is read from serve's exposition, not from a similarly named series")
    func gaugeFromExposition() {
        let exposition = """
            # HELP scorecast_heap_in_use_bytes Bytes malloc handed out and has not had back.
            # TYPE scorecast_heap_in_use_bytes gauge
            scorecast_heap_in_use_bytes_other 1
            scorecast_heap_in_use_bytes 48234496
            scorecast_heap_reserved_bytes 6.7108864e+07
            """
        #expect(MemorySampler.gauge("scorecast_heap_in_use_bytes", in: exposition) == 48_234_496)
        #expect(MemorySampler.gauge("scorecast_heap_reserved_bytes", in: exposition) == 67_108_864)
        #expect(MemorySampler.gauge("process_resident_memory_bytes", in: exposition) == nil)
    }
}
