extension HTTPRequest {
    /// The fields of an `application/x-www-form-urlencoded` body (what an HTML form posts),
    /// decoded like a query string; `nil` when the body is not valid percent-encoded UTF-8.
    public func formFields() -> [QueryItem]? {
        RequestTarget.queryItems(of: String(decoding: body, as: UTF8.self))
    }
}
