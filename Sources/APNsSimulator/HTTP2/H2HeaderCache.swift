internal import CNGHTTP2
import Foundation

/// Turns the header fields nghttp2 decodes into a request's Strings, cheaply for clients that
/// repeat themselves (APNs clients send the same token, push type, priority… on every request):
/// a field equal to the one at the same position in the previous request reuses its Strings, and
/// a request whose fields all repeat shares the previous request's whole list (no allocation).
///
/// Credentials stay out of the list: `authorization` goes to `H2Request.authorization`, and the
/// list (which is logged and shown) gets a redacted value in its place.
/// Per connection, confined to its loop thread.
struct H2HeaderCache {
    /// The regular fields of the latest request, shared with requests that repeat them.
    private var latest: [(name: String, value: String)] = []
    /// Pseudo-header fields of the latest request, by position.
    private var pseudo: [(name: String, value: String)] = []
    /// The latest `authorization` value and its redacted form.
    private var credential = ""
    private var redactedCredential = ""

    /// Stores one decoded field of `stream`'s request.
    mutating func add(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, to stream: H2Stream) {
        if name.first == UInt8(ascii: ":") {
            addPseudo(name: name, value: value, to: stream)
            return
        }
        let isCredential = name.count == 13 && Self.same("authorization", name)
        if isCredential {
            if !Self.same(credential, value) {
                credential = String(decoding: value, as: UTF8.self)
                redactedCredential = Self.redact(credential)
            }
            stream.request.authorization = credential
        }
        let index = stream.regularCount
        stream.regularCount += 1
        let repeatsName = index < latest.count && Self.same(latest[index].name, name)
        let repeatsValue = repeatsName && (isCredential
            ? Self.same(latest[index].value, redactedCredential)
            : Self.same(latest[index].value, value))
        if !stream.diverged {
            if repeatsValue { return }
            stream.diverged = true
            stream.request.headers.reserveCapacity(max(16, index + 4))
            stream.request.headers.append(contentsOf: latest.prefix(index))
        }
        let nameText = repeatsName ? latest[index].name : String(decoding: name, as: UTF8.self)
        let valueText = isCredential ? redactedCredential : repeatsValue ? latest[index].value : String(decoding: value, as: UTF8.self)
        stream.request.headers.append((nameText, valueText))
    }

    /// Completes `stream`'s header list once the request is complete, and remembers it.
    mutating func finish(_ stream: H2Stream) {
        if stream.diverged {
            latest = stream.request.headers
        } else if stream.regularCount == latest.count {
            stream.request.headers = latest
        } else {
            stream.request.headers = Array(latest.prefix(stream.regularCount))
            latest = stream.request.headers
        }
    }

    private mutating func addPseudo(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, to stream: H2Stream) {
        let index = stream.pseudoCount
        stream.pseudoCount += 1
        let text: String
        if index < pseudo.count && Self.same(pseudo[index].name, name) {
            if Self.same(pseudo[index].value, value) {
                text = pseudo[index].value
            } else {
                text = String(decoding: value, as: UTF8.self)
                pseudo[index].value = text
            }
        } else {
            text = String(decoding: value, as: UTF8.self)
            let entry = (String(decoding: name, as: UTF8.self), text)
            if index < pseudo.count { pseudo[index] = entry } else if index == pseudo.count && index < 8 { pseudo.append(entry) }
        }
        switch name.count {
        case 5 where Self.same(":path", name): stream.request.path = text
        case 7 where Self.same(":method", name): stream.request.method = text
        case 10 where Self.same(":authority", name): stream.request.authority = text
        default: break
        }
    }

    /// `bearer <redacted>` for `bearer …` (the scheme is kept), `<redacted>` otherwise.
    static func redact(_ credential: String) -> String {
        guard let space = credential.firstIndex(of: " "), credential.distance(from: credential.startIndex, to: space) <= 16 else {
            return "<redacted>"
        }
        return credential[..<space] + " <redacted>"
    }

    /// Whether `text`'s UTF-8 equals `bytes`, without copying or mutating `text` (which may be
    /// shared with a logged request).
    private static func same(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if let result = text.utf8.withContiguousStorageIfAvailable({ stored in
            stored.count == bytes.count && (bytes.isEmpty || memcmp(stored.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        }) {
            return result
        }
        return text.utf8.elementsEqual(bytes)
    }

    /// Whether two strings are equal (they usually share storage, which makes this immediate).
    private static func same(_ text: String, _ other: String) -> Bool { text == other }
}
