import Foundation
import ScorecastActivity

/// A team's identity as a game's registration gives it: the 3-letter code and the colours the
/// Live Activity shows. Each part is optional; ``attributes(name:)`` fills what is missing with
/// `GameAttributes.Team`'s fallbacks.
package struct TeamIdentity: Sendable, Hashable {
    /// The 3-letter code, upper-case letters and digits.
    package var code: String?
    /// The primary colour, `#RRGGBB` upper-case.
    package var primaryColour: String?
    /// The secondary colour, `#RRGGBB` upper-case.
    package var secondaryColour: String?

    /// Creates an identity.
    package init(code: String? = nil, primaryColour: String? = nil, secondaryColour: String? = nil) {
        self.code = code
        self.primaryColour = primaryColour
        self.secondaryColour = secondaryColour
    }

    /// The identity of the options `--<side>-code CODE` and `--<side>-colours PRIMARY[,SECONDARY]`,
    /// normalised (upper-case); `invalidInput` naming the option and the value otherwise.
    package static func parse(side: String, code: String?, colours: String?) throws(RegistryError) -> TeamIdentity {
        var identity = TeamIdentity()
        if let code {
            guard let valid = GameAttributes.Team.validCode(code) else {
                throw RegistryError(.invalidInput, "--\(side)-code must be 3 letters or digits (ARS, S04), got \"\(code.prefix(40))\"")
            }
            identity.code = valid
        }
        if let colours {
            let parts = colours.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let valid = parts.map(GameAttributes.Team.validColour)
            guard (1...2).contains(parts.count), valid.allSatisfy({ $0 != nil }) else {
                throw RegistryError(
                    .invalidInput, "--\(side)-colours must be one or two hex colours, PRIMARY[,SECONDARY] (#C8102E,#FFFFFF), got \"\(colours.prefix(40))\"")
            }
            identity.primaryColour = valid[0]
            identity.secondaryColour = valid.count > 1 ? valid[1] : nil
        }
        return identity
    }

    /// The team as the Live Activity's attributes carry it: the registered code and colours, or
    /// the fallbacks (a code from `name`'s letters, neutral colours), so every app sees all three.
    package func attributes(name: String) -> GameAttributes.Team {
        let registered = GameAttributes.Team(name: name, abbreviation: code, primaryColour: primaryColour, secondaryColour: secondaryColour)
        return GameAttributes.Team(name: name, abbreviation: registered.code, primaryColour: registered.primary, secondaryColour: registered.secondary)
    }
}
