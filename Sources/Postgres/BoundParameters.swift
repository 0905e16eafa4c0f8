internal import CLibPQ

/// A statement's bound values laid out the way libpq takes them: one buffer of NUL-terminated
/// values with their lengths, type OIDs and formats. Built once per call and shared by the
/// prepare and execute steps.
struct BoundParameters {
    /// How many values (already checked to fit libpq's 16-bit count).
    let count: Int32
    /// The declared type of each value; `0` lets the server infer it.
    let types: [Oid]
    /// Byte length of each value (ignored by libpq for text values, which end in NUL).
    let lengths: [Int32]
    /// `0` for text, `1` for binary, per value.
    let formats: [Int32]
    /// Every value, each followed by a NUL; starts with one NUL so it is never empty.
    private let buffer: [UInt8]
    /// Where each value starts in `buffer`; `-1` for SQL NULL.
    private let offsets: [Int]

    init(_ binds: [PostgresBindValue]) {
        var buffer: [UInt8] = [0]
        var offsets: [Int] = []
        var lengths: [Int32] = []
        offsets.reserveCapacity(binds.count)
        lengths.reserveCapacity(binds.count)
        for bind in binds {
            guard let bytes = bind.bytes else {
                offsets.append(-1)
                lengths.append(0)
                continue
            }
            offsets.append(buffer.count)
            lengths.append(Int32(bytes.count))
            buffer.append(contentsOf: bytes)
            buffer.append(0)
        }
        self.count = Int32(binds.count)
        self.types = binds.map { Oid($0.dataType.rawValue) }
        self.formats = binds.map { Int32($0.format == .binary ? 1 : 0) }
        self.lengths = lengths
        self.buffer = buffer
        self.offsets = offsets
    }

    /// The type OIDs as plain integers (the statement cache's key).
    var typeOIDs: [UInt32] { types.map { UInt32($0) } }

    /// Calls `body` with libpq's `paramValues` array, valid only during the call.
    func withValues<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        buffer.withUnsafeBufferPointer { storage in
            // The buffer starts with a NUL byte, so it always has a base address.
            guard let start = storage.baseAddress else { return body(nil) }
            let base = UnsafeRawPointer(start)
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in
                offset < 0 ? nil : (base + offset).assumingMemoryBound(to: CChar.self)
            }
            return values.withUnsafeBufferPointer { body($0.baseAddress) }
        }
    }
}
