import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// One system-wide package install at a time: test processes of several checkouts on one
/// machine install the same package into the same /usr and /etc. An exclusive `flock` on a file
/// every such test opens; the kernel releases it when the holder exits, even by a crash.
final class SystemInstallLock {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Waits (polling, so that no thread of the cooperative pool blocks) until the lock is ours.
    static func acquire(timeout: Duration = .seconds(600)) async throws -> SystemInstallLock {
        let descriptor = open("/tmp/scorecast-system-install.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw TestSupportError("cannot open the install lock: \(String(cString: strerror(errno)))") }
        let deadline = ContinuousClock.now + timeout
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard ContinuousClock.now < deadline else {
                close(descriptor)
                throw TestSupportError("another test has held the system install lock for \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        return SystemInstallLock(descriptor: descriptor)
    }

    deinit {
        close(descriptor)  // releases the flock
    }
}
