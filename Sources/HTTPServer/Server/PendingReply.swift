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

/// The bridge between a suspended libmicrohttpd connection and the Swift task answering it.
///
/// The access handler suspends the connection and starts a task; the task (or the shutdown
/// path, whichever comes first) stores the response here and resumes the connection exactly
/// once; libmicrohttpd then calls the access handler again on the connection's thread, which
/// takes the response and queues it.
final class PendingReply: Sendable {
    private enum State {
        case waiting
        case ready(HTTPResponse)
        case taken
    }

    /// The request's id, for a reply written by the shutdown path.
    let requestID: String
    private let connection: ConnectionHandle
    private let state = Mutex<State>(.waiting)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(connection: ConnectionHandle, requestID: String) {
        self.connection = connection
        self.requestID = requestID
    }

    /// Stores `response` and resumes the connection, unless a response was already given.
    /// Returns whether this call was the one that completed the reply.
    @discardableResult
    func complete(with response: HTTPResponse) -> Bool {
        let first = state.withLock { state -> Bool in
            guard case .waiting = state else { return false }
            state = .ready(response)
            return true
        }
        // Outside the lock: resuming wakes the connection's thread, which takes the lock.
        if first { MHD_resume_connection(connection.pointer) }
        return first
    }

    /// The response, once; `nil` if none is ready (or it was already taken).
    func takeResponse() -> HTTPResponse? {
        state.withLock { state in
            guard case .ready(let response) = state else { return nil }
            state = .taken
            return response
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
