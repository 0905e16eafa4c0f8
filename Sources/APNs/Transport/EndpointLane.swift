/// The curl thread's bookkeeping for one endpoint: the transfers waiting for a free stream,
/// the transfers in flight, when a request last started or ended there (for `IdleAgeLimit`),
/// whether its connection has answered, and the user data of its socket callbacks.
///
/// One object per endpoint, found once when a transfer arrives and then carried by it (in its
/// queue, then by its easy handle), so the loop's per-request work hashes no `APNsEndpoint`
/// (whose hash covers its host and CA path strings). Confined to the curl thread.
final class EndpointLane {
    let endpoint: APNsEndpoint
    /// Transfers waiting for a stream, oldest first (resends go to the front).
    var queue = TransferQueue()
    /// Transfers handed to libcurl and not finished yet.
    var inFlight = 0
    /// When a request to the endpoint last started or ended (`nil`: never).
    var lastActivity: ContinuousClock.Instant?
    /// Whether the endpoint answered since its last connection failure or fresh connection.
    /// Until then it gets one request at a time: with `CURLOPT_PIPEWAIT` the others then wait
    /// for that connection to confirm multiplexing instead of opening connections of their
    /// own, and APNs itself allows one stream until a request with a valid token has
    /// succeeded (apns.md §6).
    var warmedUp = false
    /// The socket callbacks' user data; lives as long as the lane, which the loop keeps until
    /// after `curl_multi_cleanup`, the last moment libcurl may close a socket.
    let socketAccount: SocketAccount

    init(endpoint: APNsEndpoint, tally: OpenConnections) {
        self.endpoint = endpoint
        socketAccount = SocketAccount(endpoint: endpoint, tally: tally)
    }

    /// The unretained pointer libcurl's socket callbacks get.
    var socketAccountPointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(socketAccount).toOpaque() }

    /// How many transfers may be in flight now: one until the endpoint has answered.
    func streamCap(warm: Int) -> Int { warmedUp ? warm : 1 }
}
