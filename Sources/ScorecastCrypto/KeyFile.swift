#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads small secret files (keys) with POSIX calls, so a failure can say exactly why
/// (`strerror`) while naming only the path.
enum KeyFile {
    /// Keys are a few hundred bytes; anything past this is not a key file.
    static let sizeLimit = 1 << 20

    /// The whole content of `path`, or `CryptoError.unreadableFile` naming the path and reason.
    static func read(_ path: String) throws -> [UInt8] {
        guard !path.isEmpty else {
            throw CryptoError(code: .unreadableFile, context: "key file path is empty")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw unreadable(path, errno)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw unreadable(path, errno)
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw CryptoError(code: .unreadableFile, context: "key file '\(path)' is not a regular file")
        }
        var content: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { posixRead(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw unreadable(path, errno)
            }
            content.append(contentsOf: chunk[0..<count])
            if content.count > sizeLimit {
                throw CryptoError(code: .unreadableFile, context: "key file '\(path)' is larger than \(sizeLimit) bytes: not a key")
            }
        }
        return content
    }

    /// `read(2)`, named apart from `KeyFile.read`.
    private static func posixRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.read(descriptor, buffer, count)
        #else
        return Darwin.read(descriptor, buffer, count)
        #endif
    }

    private static func unreadable(_ path: String, _ code: Int32) -> CryptoError {
        let reason = String(cString: strerror(code))
        return CryptoError(code: .unreadableFile, context: "cannot read key file '\(path)': \(reason)")
    }
}
