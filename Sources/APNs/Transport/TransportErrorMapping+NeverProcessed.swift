internal import CCurl

extension TransportErrorMapping {
    /// Whether the server certainly did not process the request of a transfer that libcurl
    /// ended with `code`, so that sending it again cannot duplicate it (RFC 9113 §8.7). Pure.
    ///
    /// - A request libcurl never got as far as sending was not processed.
    /// - A stream above a GOAWAY's last stream id was not processed (§6.8). libcurl 7.88
    ///   (Debian 12) does not say so when that stream is the last one left on the connection:
    ///   nghttp2 closes it with REFUSED_STREAM, but libcurl checks "the session has nothing
    ///   left to do" before it checks the refusal and returns `CURLE_HTTP2` with no text in
    ///   the error buffer (lib/http2.c, `h2_process_pending_input`; a refusal it does see
    ///   becomes `CURLE_RECV_ERROR`, which libcurl resends itself). That `CURLE_HTTP2` is
    ///   recognised by what libcurl leaves out: no explanation (every other `CURLE_HTTP2`
    ///   comes with one) and no byte of a response. A stream the server reset ends as
    ///   `CURLE_PARTIAL_FILE` instead, and stays "may have been processed".
    /// - Anything else sent may have been processed.
    /// - Parameters:
    ///   - detail: libcurl's error buffer text (empty when it wrote none).
    ///   - reachedTransfer: whether libcurl got as far as sending the request.
    ///   - responseBytes: header and body bytes of a response received on the stream.
    static func neverProcessed(code: CURLcode, detail: String, reachedTransfer: Bool, responseBytes: Int) -> Bool {
        guard reachedTransfer else { return true }
        guard code == CURLE_HTTP2, responseBytes == 0 else { return false }
        // Later libcurls may fill the buffer with the code's own description: no explanation either.
        return detail.isEmpty || detail == String(cString: curl_easy_strerror(code))
    }
}
