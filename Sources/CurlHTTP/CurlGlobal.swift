internal import CCurl

/// `curl_global_init` must run once, before any other libcurl call and before threads use
/// curl; a lazily initialised global gives exactly that (Swift runs it once, thread-safely).
package enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(ccurl_global_default_flags()) == CURLE_OK

    /// Initialises libcurl if that has not happened yet; `false` if it failed.
    package static func ensureInitialized() -> Bool { initialized }

    /// Whether this libcurl was built with HTTP/2 (nghttp2); without it APNs cannot be reached.
    package static var supportsHTTP2: Bool {
        guard let info = ccurl_version_info() else { return false }
        return info.pointee.features & CURL_VERSION_HTTP2 != 0
    }
}
