import Foundation
import TestSupport

/// A small tmpfs mounted for one test, so that a full disk is one `fill()` away and the rest of
/// the machine is untouched (needs root).
struct SmallDisk {
    let url: URL

    init(megabytes: Int) throws {
        url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("scorecast-small-disk-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        // 755: the server's user must pass through to the state folder.
        let mounted = "size=\(megabytes)m,mode=755".withCString { options in mount("tmpfs", url.path, "tmpfs", 0, options) }
        guard mounted == 0 else {
            throw TestSupportError("cannot mount a tmpfs at \(url.path): \(String(cString: strerror(errno)))")
        }
    }

    /// Writes a file taking every free byte; returns its path.
    func fill() throws -> String {
        let path = url.appendingPathComponent("filler").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw TestSupportError("cannot create \(path)") }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 1, count: 1 << 16)
        var block = chunk.count
        while block > 0 {
            let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, block) }
            if written < 0 { block /= 2 }
        }
        return path
    }

    /// Removes what `fill` wrote.
    func free(_ path: String) { unlink(path) }

    /// Unmounts the disk and removes its mount point.
    func remove() {
        // MNT_DETACH (2): a process still holding a file there does not keep the disk mounted.
        _ = umount2(url.path, 2)
        try? FileManager.default.removeItem(at: url)
    }
}
