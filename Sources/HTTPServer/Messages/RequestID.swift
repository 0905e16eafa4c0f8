/// Request identifiers: 16 lower-case hex digits, or a caller's own when it is safe to echo.
public enum RequestID {
    /// A fresh random id, e.g. `4f1c2a9be07d3310`.
    public static func generate() -> String {
        let value = UInt64.random(in: .min ... .max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Whether an incoming `X-Request-ID` may be reused: 1 to 64 characters of `A-Z a-z 0-9 . _ -`,
    /// so it cannot inject anything into logs or headers.
    public static func isAcceptable(_ candidate: String) -> Bool {
        let utf8 = candidate.utf8
        return (1...64).contains(utf8.count) && utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }
}
