import Clocks
import ScorecastLogging
import Synchronization

/// The async face of the curl thread (`CurlEventLoop`: one libcurl multi handle driving
/// HTTP/2 streams over TLS): `perform` hands a request to it and suspends until the answer,
/// the deadline, cancellation or shutdown.
final class HTTP2Transport: Sendable {
    private let mailbox: LoopMailbox
    private let nextID = Atomic<UInt64>(0)
    private let clock: any ServiceClock
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
        let deadline = clock.monotonicNow() + timeout
        let cancellation = CancellationFlag()
        let mailbox = self.mailbox
        do {
            return try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<HTTPResponse, any Error>) in
                    let transfer = Transfer(id: id, request: request, deadline: deadline, cancellation: cancellation,
                                            reply: .caller(continuation))
                    if !mailbox.submit(transfer) { transfer.fail(TransportErrorMapping.shutdown(onStream: false)) }
                }
            } onCancel: {
                cancellation.raise()
                mailbox.cancel(id..<id + 1)
            }
        } catch let error as APNsClientError {
            throw error
        } catch {
            throw APNsClientError(.transport, "unexpected failure: \(error)")
        }
    }

    /// Sends every request at once and returns their answers in the same order when all are
    /// in: one hand-over to the curl thread and one back for the whole batch. Each request
    /// keeps its own fate (the same deadline, resends and failures as ``perform(_:timeout:)``);
    /// cancelling the awaiting task cancels the requests not answered yet.
    func performAll(_ requests: [HTTPRequest], timeout: Duration) async -> [Result<HTTPResponse, APNsClientError>] {
        guard !requests.isEmpty else { return [] }
        let count = UInt64(requests.count)
        let first = nextID.add(count, ordering: .relaxed).newValue - count + 1
        let ids = first..<first + count
        let deadline = clock.monotonicNow() + timeout
        let cancellation = CancellationFlag()
        let mailbox = self.mailbox
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<BatchReply.Answers, Never>) in
                let batch = BatchReply(count: requests.count, continuation: continuation)
                let transfers = requests.enumerated().map { index, request in
                    Transfer(id: first + UInt64(index), request: request, deadline: deadline, cancellation: cancellation,
                             reply: .batch(batch, index: index))
                }
                if !mailbox.submit(contentsOf: transfers) {
                    for transfer in transfers { transfer.fail(TransportErrorMapping.shutdown(onStream: false)) }
                }
            }
        } onCancel: {
            cancellation.raise()
            mailbox.cancel(ids)
        }
    }

    /// Fails everything still pending with `.shutdown`, closes the connections, stops the loop
    /// thread and waits for it.
    func shutdown() async {
        mailbox.requestStop()
        await mailbox.waitUntilStopped()
    }
}
