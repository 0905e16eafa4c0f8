package import CCurl

/// Owns one libcurl header list (`curl_slist`). libcurl keeps only the pointer given to
/// `CURLOPT_HTTPHEADER`, so the list must outlive every transfer that uses it; an
/// easy handle's owner keeps its current list and rebuilds it only when the lines change.
package final class HeaderList {
    package let lines: [String]
    package private(set) var pointer: UnsafeMutablePointer<curl_slist>?

    /// Builds the list; `nil` when libcurl cannot allocate it.
    package init?(lines: [String]) {
        self.lines = lines
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let extended = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                return nil
            }
            list = extended
        }
        pointer = list
    }

    deinit {
        curl_slist_free_all(pointer)
    }
}
