internal import CNGHTTP2

/// The nghttp2 callback table shared by every session of a server.
///
/// nghttp2 calls plain C functions; each one recovers its `H2Connection` from the session's
/// `user_data` (an unretained pointer: the server keeps the connection alive until the session
/// is deleted) and forwards to it.
final class H2Callbacks: @unchecked Sendable {
    // @unchecked Sendable: the table is filled in `init` and only read by nghttp2 afterwards.

    let table: OpaquePointer

    init() throws(SimulatorError) {
        var table: OpaquePointer?
        guard nghttp2_session_callbacks_new(&table) == 0, let table else {
            throw .http2("allocating callbacks", "out of memory")
        }
        self.table = table

        nghttp2_session_callbacks_set_on_begin_headers_callback(table) { _, frame, userData in
            guard let frame, let userData else { return 0 }
            if frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue)
                && frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST {
                H2Connection.from(userData).beginStream(frame.pointee.hd.stream_id)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(table) { _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, let name, let value, let userData else { return 0 }
            H2Connection.from(userData).header(
                streamID: frame.pointee.hd.stream_id,
                name: UnsafeBufferPointer(start: name, count: nameLength),
                value: UnsafeBufferPointer(start: value, count: valueLength))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(table) { _, _, streamID, data, length, userData in
            guard let data, let userData else { return 0 }
            H2Connection.from(userData).data(streamID: streamID, bytes: UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(table) { _, frame, userData in
            guard let frame, let userData else { return 0 }
            let type = frame.pointee.hd.type
            let endsStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            if endsStream && (type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue)) {
                H2Connection.from(userData).requestComplete(streamID: frame.pointee.hd.stream_id)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(table) { _, streamID, _, userData in
            guard let userData else { return 0 }
            H2Connection.from(userData).streamClosed(streamID)
            return 0
        }
    }

    deinit { nghttp2_session_callbacks_del(table) }

    /// The body reader handed to `nghttp2_submit_response`: copies the stream's response body.
    static let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, dataFlags, _, userData in
        guard let buffer, let dataFlags, let userData else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        return H2Connection.from(userData).readBody(streamID: streamID, into: buffer, capacity: length, flags: dataFlags)
    }
}
