import Foundation
import ScorecastActivity
import ScorecastCore

extension TeamIdentity {
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
}
