internal import CMicroHTTPD
import Synchronization

/// A libmicrohttpd connection pointer that may cross threads.
///
/// `@unchecked Sendable` is safe because the pointer is only passed to `MHD_resume_connection`,
/// which libmicrohttpd documents as callable from any thread for a suspended connection, and a
/// suspended connection is not freed until it is resumed (or the daemon stops, which
/// `HTTPServer` only does once every pending reply has been resumed).
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// What a Swift task gives back to a connection: a response, or (from a route's gate) leave to
/// read the body and go on.
enum ReplyAnswer: Sendable {
    case response(HTTPResponse)
    case admitted
}

/// The bridge between a libmicrohttpd connection and the Swift task answering it (or screening
/// its headers).
///
/// The access handler starts the handler task with `Task.immediate`, so the handler runs on the
/// connection's thread until its first suspension point. Then `responseOrSuspend()` either
/// takes the finished response (no thread hop at all) or suspends the connection. When a
/// suspended reply completes, the connection is resumed exactly once and libmicrohttpd calls
/// the access handler again, on the connection's thread, which takes the response.
/// The task and the shutdown path may both complete a reply; the first one wins.
final class PendingReply: Sendable {
    private enum State {
        /// The handler is running; the connection is not suspended.
        case running
        /// The connection is suspended until a response arrives.
        case suspended
        case ready(ReplyAnswer)
        case taken
    }

    /// The request's id, for a reply written by the shutdown path.
    let requestID: String
    private let connection: ConnectionHandle
    private let state = Mutex<State>(.running)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(connection: ConnectionHandle, requestID: String) {
        self.connection = connection
        self.requestID = requestID
    }

    /// Stores `response`, resuming the connection if it is suspended, unless a response was
    /// already given. Returns whether this call was the one that completed the reply.
    @discardableResult
    func complete(with response: HTTPResponse) -> Bool {
        complete(with: .response(response))
    }

    /// Stores `answer` (see `complete(with:)` for a response).
    @discardableResult
    func complete(with answer: ReplyAnswer) -> Bool {
        let outcome = state.withLock { state -> (completed: Bool, resume: Bool) in
            switch state {
            case .running:
                state = .ready(answer)
                return (true, false)
            case .suspended:
                state = .ready(answer)
                return (true, true)
            case .ready, .taken:
                return (false, false)
            }
        }
        // Outside the lock: resuming wakes the connection's thread, which takes the lock.
        if outcome.resume { MHD_resume_connection(connection.pointer) }
        return outcome.completed
    }

    /// On the connection's thread: the answer if it is ready (taken once); otherwise
    /// suspends the connection and returns `nil`. Suspending under the lock guarantees that
    /// `complete` cannot resume the connection before it is suspended.
    func answerOrSuspend() -> ReplyAnswer? {
        state.withLock { state in
            switch state {
            case .ready(let answer):
                state = .taken
                return answer
            case .running, .suspended:
                state = .suspended
                MHD_suspend_connection(connection.pointer)
                return nil
            case .taken:
                return nil
            }
        }
    }

    /// Remembers the task computing the reply, so shutdown can cancel it.
    func attach(_ task: Task<Void, Never>) {
        self.task.withLock { $0 = task }
    }

    /// Cancels the task computing the reply, if any.
    func cancelTask() {
        task.withLock { $0 }?.cancel()
    }
}
