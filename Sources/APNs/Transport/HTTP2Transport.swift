import ScorecastLogging
import Synchronization

/// The async face of the curl thread (`CurlEventLoop`: one libcurl multi handle driving
/// HTTP/2 streams over TLS): `perform` hands a request to it and suspends until the answer,
/// the deadline, cancellation or shutdown.
final class HTTP2Transport: Sendable {
    private let mailbox: LoopMailbox
    private let nextID = Atomic<UInt64>(0)
    private let clock: TransportClock
    /// The connections the loop holds open now, per endpoint.
    let openConnections: OpenConnections

    /// Starts the loop thread.
    /// - Parameter openConnections: counts the loop's connections (and tells its observer).
    init(options: TransportOptions, openConnections: OpenConnections = OpenConnections(), logger: Logger) throws(APNsClientError) {
        clock = options.clock
        self.openConnections = openConnections
        mailbox = try CurlEventLoop.start(options: options, openConnections: openConnections, logger: logger)
    }

    deinit {
        mailbox.requestStop()
    }

    /// Sends `request` and returns the complete response.
    /// - Throws: `APNsClientError` for timeout, connection, TLS, cancellation or shutdown.
    func perform(_ request: HTTPRequest, timeout: Duration) async throws(APNsClientError) -> HTTPResponse {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let deadline = clock.now() + timeout
        let cancellation = CancellationFlag()
        let mailbox = self.mailbox
        do {
            return try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<HTTPResponse, any Error>) in
                    let transfer = Transfer(id: id, request: request, deadline: deadline,
                                            cancellation: cancellation, continuation: continuation)
                    if !mailbox.submit(transfer) {
                        continuation.resume(throwing: APNsClientError(.shutdown, "the APNs client was shut down", neverProcessed: true))
                    }
                }
            } onCancel: {
                cancellation.raise()
                mailbox.cancel(id)
            }
        } catch let error as APNsClientError {
            throw error
        } catch {
            throw APNsClientError(.transport, "unexpected failure: \(error)")
        }
    }

    /// Fails everything still pending with `.shutdown`, closes the connections, stops the loop
    /// thread and waits for it.
    func shutdown() async {
        mailbox.requestStop()
        await mailbox.waitUntilStopped()
    }
}
