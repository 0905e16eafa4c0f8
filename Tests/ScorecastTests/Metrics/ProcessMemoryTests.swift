import PrometheusMetrics
@testable import Statistics
import Testing


/// `/metrics`'s memory gauges against memory the test allocates itself: 64 MiB touched and
/// kept alive must show in RSS and heap in use, and leave heap in use when freed.
@Suite("Process memory")
struct ProcessMemoryTests {
    private static let mib = 1 << 20

    @Test func theGaugesFollowAnAllocationAndItsRelease() throws {
        let registry = MetricsRegistry()
        let gauges = try ProcessMemoryGauges(registry: registry)
        let before = scrape(gauges, registry)

        let size = 64 * Self.mib
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        block.initializeMemory(as: UInt8.self, repeating: 7)  // touched: every page resident
        let holding = scrape(gauges, registry)
        #expect(block[size - 1] == 7)
        block.deallocate()
        let after = scrape(gauges, registry)

        #expect(holding.heapInUse - before.heapInUse >= 48 * Double(Self.mib))
        #expect(holding.resident - before.resident >= 48 * Double(Self.mib))
        #expect(holding.heapReserved >= holding.heapInUse)
        #expect(holding.heapInUse - after.heapInUse >= 48 * Double(Self.mib))
    }

    @Test func residentBytesAreTheSecondStatmFieldInPages() {
        #expect(ProcessMemory.residentBytes(statm: "51234 2048 900 300 0 4100 0\n", pageSize: 4096) == 2048 * 4096)
        #expect(ProcessMemory.residentBytes(statm: "51234", pageSize: 4096) == nil)
        #expect(ProcessMemory.residentBytes(statm: "a b c", pageSize: 4096) == nil)
    }

    /// Refreshes the gauges and reads the three values back from the rendered exposition.
    private func scrape(_ gauges: ProcessMemoryGauges, _ registry: MetricsRegistry) -> (resident: Double, heapInUse: Double, heapReserved: Double) {
        gauges.refresh()
        let text = registry.render()
        func value(_ name: String) -> Double {
            let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
            return line.flatMap { Double($0.dropFirst(name.count + 1)) } ?? -1
        }
        return (value("process_resident_memory_bytes"), value("scorecast_heap_in_use_bytes"), value("scorecast_heap_reserved_bytes"))
    }
}
