import PrometheusMetrics

/// The process's memory in `/metrics`, read at scrape time: `process_resident_memory_bytes`
/// (the Prometheus standard name), `scorecast_heap_in_use_bytes` and
/// `scorecast_heap_reserved_bytes` (`ProcessMemory`). Over a long run, RSS growing with heap in
/// use flat is malloc keeping freed memory; heap in use growing is live objects growing.
package struct ProcessMemoryGauges: Sendable {
    let resident: Gauge<NoLabels>
    let heapInUse: Gauge<NoLabels>
    let heapReserved: Gauge<NoLabels>

    /// Registers the three gauges in `registry`.
    package init(registry: MetricsRegistry) throws(MetricsError) {
        resident = try registry.gauge("process_resident_memory_bytes", help: "Resident memory size in bytes.")
        heapInUse = try registry.gauge(
            "scorecast_heap_in_use_bytes", help: "Bytes malloc handed out and has not had back (glibc mallinfo2 uordblks + hblkhd).")
        heapReserved = try registry.gauge(
            "scorecast_heap_reserved_bytes",
            help: "Bytes malloc holds from the operating system, in use or kept free for reuse (glibc mallinfo2 arena + hblkhd).")
    }

    /// Sets the gauges to this moment's figures (left as they are where they cannot be read).
    package func refresh() {
        guard let memory = ProcessMemory.current() else { return }
        resident.set(to: Double(memory.residentBytes))
        heapInUse.set(to: Double(memory.heapInUseBytes))
        heapReserved.set(to: Double(memory.heapReservedBytes))
    }
}
