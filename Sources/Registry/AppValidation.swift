/// Pure checks of what identifies an app to APNs, with messages that name the argument.
package enum AppValidation {
    /// The longest bundle id the schema accepts.
    package static let maximumBundleIDLength = 155

    /// A bundle id: two or more dot-separated parts of ASCII letters, digits and hyphens
    /// (`com.example.scores`), at most 155 characters. The same rule as the `apps` table.
    package static func checkBundleID(_ value: String, option: String = "--bundle-id") throws(RegistryError) {
        guard !value.isEmpty else { throw RegistryError(.invalidInput, "\(option) is empty") }
        guard value.utf8.count <= maximumBundleIDLength else {
            throw RegistryError(.invalidInput, "\(option) is longer than \(maximumBundleIDLength) characters")
        }
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2 else {
            throw RegistryError(.invalidInput, "\(option) \"\(value)\" needs at least two dot-separated parts, like com.example.scores")
        }
        for part in parts {
            guard !part.isEmpty else {
                throw RegistryError(.invalidInput, "\(option) \"\(value)\" has an empty part (two dots in a row, or a leading or trailing dot)")
            }
            guard part.utf8.allSatisfy(isBundleByte) else {
                throw RegistryError(.invalidInput, "\(option) \"\(value)\" may only hold letters A–Z, a–z, digits, hyphens and dots")
            }
        }
    }

    /// Whether `value` is a valid bundle id (see `checkBundleID`).
    package static func isValidBundleID(_ value: String) -> Bool {
        (try? checkBundleID(value)) != nil
    }

    /// A team or key id: exactly 10 upper-case ASCII letters or digits.
    package static func checkAppleID(_ value: String, option: String) throws(RegistryError) {
        guard value.utf8.count == 10, value.utf8.allSatisfy(isAppleIDByte) else {
            throw RegistryError(
                .invalidInput,
                "\(option) must be exactly 10 upper-case letters or digits (as shown in Apple's developer account), got \"\(value.prefix(32))\"")
        }
    }

    private static func isBundleByte(_ byte: UInt8) -> Bool {
        isAppleIDByte(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || byte == UInt8(ascii: "-")
    }

    private static func isAppleIDByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
