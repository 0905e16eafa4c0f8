internal import CNGHTTP2

/// The nghttp2 callback table shared by every client session.
///
/// nghttp2 calls plain C functions, so none of these closures capture anything: each recovers
/// its `H2ClientConnection` from the session's `user_data` (an unretained pointer; the
/// connection deletes its session before it goes away) and forwards to it.
final class H2ClientCallbacks: @unchecked Sendable {
    // @unchecked Sendable: the table is filled once in `init` and only read by nghttp2 after.

    let table: OpaquePointer?

    /// The one table; `nil` only if nghttp2 could not allocate it.
    static let shared = H2ClientCallbacks()

    private init() {
        var created: OpaquePointer?
        guard nghttp2_session_callbacks_new(&created) == 0, let table = created else {
            self.table = nil
            return
        }
        self.table = table
        nghttp2_session_callbacks_set_on_header_callback(table) { _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, let name, let value, let userData else { return 0 }
            H2ClientConnection.from(userData).receivedHeader(
                streamID: frame.pointee.hd.stream_id,
                name: UnsafeBufferPointer(start: name, count: nameLength),
                value: UnsafeBufferPointer(start: value, count: valueLength))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(table) { _, _, streamID, data, length, userData in
            guard let data, let userData else { return 0 }
            H2ClientConnection.from(userData).receivedData(streamID: streamID, bytes: UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(table) { _, frame, userData in
            guard let frame, let userData else { return 0 }
            H2ClientConnection.from(userData).receivedFrame(frame)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(table) { _, frame, userData in
            guard let frame, let userData else { return 0 }
            if frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) {
                H2ClientConnection.from(userData).sentHeaders(streamID: frame.pointee.hd.stream_id)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(table) { _, frame, _, userData in
            guard let frame, let userData else { return 0 }
            if frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) {
                H2ClientConnection.from(userData).headersNotSent(streamID: frame.pointee.hd.stream_id)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(table) { _, streamID, errorCode, userData in
            guard let userData else { return 0 }
            H2ClientConnection.from(userData).streamClosed(streamID: streamID, errorCode: errorCode)
            return 0
        }
    }

    deinit {
        if let table { nghttp2_session_callbacks_del(table) }
    }

    /// The request-body reader given to `nghttp2_submit_request`; the source is the stream.
    static let readBody: nghttp2_data_source_read_callback = { _, _, buffer, length, dataFlags, source, _ in
        guard let buffer, let dataFlags, let pointer = source?.pointee.ptr else {
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        let stream = Unmanaged<H2ClientStream>.fromOpaque(pointer).takeUnretainedValue()
        return stream.requestBody.withUnsafeBufferPointer { body in
            let count = min(body.count - stream.bodyOffset, length)
            if count > 0, let base = body.baseAddress {
                buffer.update(from: base + stream.bodyOffset, count: count)
                stream.bodyOffset += count
            }
            if stream.bodyOffset >= body.count { dataFlags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
            return max(0, count)
        }
    }
}
