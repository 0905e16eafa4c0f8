import CMalloc

#if canImport(Glibc)
import Glibc
#endif

/// This process's memory as the kernel and glibc's malloc see it, so a growing RSS can be told
/// apart: heap in use growing means live objects grow (a leak or a growing cache); RSS growing
/// while heap in use stays flat means malloc keeps freed memory for reuse (allocator retention).
package struct ProcessMemory: Sendable, Equatable {
    /// Resident set size: this process's pages in RAM (`/proc/self/statm` × page size).
    package var residentBytes: Int
    /// Bytes malloc handed out and has not had back (`mallinfo2`: `uordblks + hblkhd`).
    package var heapInUseBytes: Int
    /// Bytes malloc holds from the operating system, in use or kept free for reuse
    /// (`mallinfo2`: `arena + hblkhd`).
    package var heapReservedBytes: Int

    /// The figures now; `nil` where there is no `/proc` or no glibc malloc (not Linux).
    package static func current() -> ProcessMemory? {
        #if canImport(Glibc)
        guard let statm = readStatm(), let resident = residentBytes(statm: statm, pageSize: Int(sysconf(Int32(_SC_PAGESIZE)))) else {
            return nil
        }
        let info = mallinfo2()
        return ProcessMemory(
            residentBytes: resident, heapInUseBytes: Int(info.uordblks + info.hblkhd), heapReservedBytes: Int(info.arena + info.hblkhd))
        #else
        return nil
        #endif
    }

    /// The resident bytes in a `/proc/<pid>/statm` line (`size resident shared …`, in pages).
    package static func residentBytes(statm: String, pageSize: Int) -> Int? {
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * pageSize
    }

    #if canImport(Glibc)
    /// `/proc/self/statm` with one `read(2)` (its size shows as 0, so no size-based read): one
    /// line of seven numbers, far below the buffer.
    private static func readStatm() -> String? {
        let fd = open("/proc/self/statm", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
    #endif
}
