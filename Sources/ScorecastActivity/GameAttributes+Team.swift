extension GameAttributes {
    /// A team as the Live Activity shows it: its name, the 3-letter code of the Dynamic Island's
    /// compact view, and its colours.
    ///
    /// The code and colours come from the game's registration. Every field but the name is
    /// optional in the JSON, so an app decodes payloads of servers that sent only names; it
    /// shows ``code``, ``primary`` and ``secondary``, which fall back to a code made of the
    /// name's letters and to neutral colours.
    public struct Team: Codable, Hashable, Sendable {
        /// The full display name ("Northbridge United").
        public var name: String
        /// A short name for tight layouts ("Northbridge"), when it differs.
        public var shortName: String?
        /// The 3-letter code ("NBU"), upper-case letters and digits, when known; ``code`` is
        /// what to show.
        public var abbreviation: String?
        /// The primary colour as `#RRGGBB`, when known; ``primary`` is what to show.
        public var primaryColour: String?
        /// The secondary colour as `#RRGGBB` (text on the primary, a kit's trim), when known;
        /// ``secondary`` is what to show.
        public var secondaryColour: String?

        /// Creates a team.
        public init(
            name: String, shortName: String? = nil, abbreviation: String? = nil, primaryColour: String? = nil,
            secondaryColour: String? = nil
        ) {
            self.name = name
            self.shortName = shortName
            self.abbreviation = abbreviation
            self.primaryColour = primaryColour
            self.secondaryColour = secondaryColour
        }

        /// The primary colour shown when a team has none: a neutral grey.
        public static let neutralPrimary = "#8E8E93"
        /// The secondary colour shown when a team has none: white, readable on the grey.
        public static let neutralSecondary = "#FFFFFF"

        /// The code to show: ``abbreviation`` when it is a valid code, else ``code(fromName:)``.
        public var code: String {
            abbreviation.flatMap(Self.validCode) ?? Self.code(fromName: name)
        }

        /// The primary colour to show: ``primaryColour`` when it is a valid `#RRGGBB`, else
        /// ``neutralPrimary``.
        public var primary: String {
            primaryColour.flatMap(Self.validColour) ?? Self.neutralPrimary
        }

        /// The secondary colour to show: ``secondaryColour`` when it is a valid `#RRGGBB`, else
        /// ``neutralSecondary``.
        public var secondary: String {
            secondaryColour.flatMap(Self.validColour) ?? Self.neutralSecondary
        }

        /// `text` upper-cased when it is a code (exactly 3 ASCII letters or digits), else `nil`.
        /// Checked before upper-casing: "ß" upper-cases to "SS", and a code is ASCII as typed.
        public static func validCode(_ text: String) -> String? {
            let valid = text.utf8.count == 3 && text.utf8.allSatisfy { isASCIILetter($0) || isASCIIDigit($0) }
            return valid ? text.uppercased() : nil
        }

        /// `text` as `#RRGGBB` with upper-case digits when it is a hex colour (`#` optional,
        /// ASCII hex digits only: `Character.isHexDigit` also admits full-width forms), else `nil`.
        public static func validColour(_ text: String) -> String? {
            let digits = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
            let valid = digits.utf8.count == 6
                && digits.utf8.allSatisfy { isASCIIDigit($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
            return valid ? "#" + digits.uppercased() : nil
        }

        private static func isASCIILetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

        private static func isASCIIDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

        /// The red, green and blue of a `#RRGGBB` colour, each 0…1 (for SwiftUI's
        /// `Color(red:green:blue:)`), or `nil` when `hex` is not one.
        public static func components(ofColour hex: String) -> (red: Double, green: Double, blue: Double)? {
            guard let colour = validColour(hex), let value = UInt32(colour.dropFirst(), radix: 16) else { return nil }
            return (Double(value >> 16 & 0xFF) / 255, Double(value >> 8 & 0xFF) / 255, Double(value & 0xFF) / 255)
        }

        /// A code made of `name`'s letters, as broadcasters abbreviate: one word gives its first
        /// three letters (Arsenal: ARS), two words the first's initial and the second's first two
        /// (Manchester City: MCI), three or more their initials (Paris Saint-Germain: PSG).
        /// Club prefixes and suffixes of up to three capitals (FC, AFC, AC) are left out when
        /// other words remain. Letters are upper-cased; accents are kept (Atlético: ATL).
        public static func code(fromName name: String) -> String {
            let words = name.split { !($0.isLetter || $0.isNumber) }
            let significant = words.filter { word in !(word.count <= 3 && word.allSatisfy(\.isUppercase)) }
            let chosen = significant.isEmpty ? words : significant
            let letters: [Character]
            switch chosen.count {
            case 0: letters = []
            case 1: letters = Array(chosen[0].prefix(3))
            case 2: letters = Array(chosen[0].prefix(1)) + Array(chosen[1].prefix(2))
            default: letters = chosen.prefix(3).compactMap(\.first)
            }
            return String(letters).uppercased()
        }
    }
}
