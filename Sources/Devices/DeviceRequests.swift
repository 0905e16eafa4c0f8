import APNsCore
import Foundation
import HTTPServer
import JSON
import Registry
import ScorecastCore

/// The app API's request bodies and path values, and the checks that turn them into values or
/// into a problem naming every field at fault.
enum DeviceRequests {
    /// The fields of `PUT /v1/apps/{bundle-id}/devices/{install-id}`.
    static let deviceFields: Set<String> = ["environment", "pushToStartToken", "osVersion", "frequentUpdates", "locale"]

    /// A checked registration from the request's JSON object, or a `422` naming each bad field.
    static func registration(_ body: [String: JSONValue]) throws -> DeviceRegistration {
        var errors = unknownFields(body, allowed: deviceFields)
        func text(_ key: String, required: Bool) -> String? {
            guard let value = body[key], !value.isNull else {
                if required { errors.append(.init(field: key, detail: "is required")) }
                return nil
            }
            guard let text = value.stringValue else {
                errors.append(.init(field: key, detail: "must be a string, got \(value.typeName)"))
                return nil
            }
            return text
        }
        let environmentText = text("environment", required: true)
        let environment = environmentText.flatMap(APNsEnvironment.init(rawValue:))
        if environmentText != nil, environment == nil { errors.append(.init(field: "environment", detail: "must be sandbox or production")) }
        var token: String?
        if let tokenText = text("pushToStartToken", required: false) {
            token = DeviceToken.normalize(tokenText)
            if token == nil { errors.append(.init(field: "pushToStartToken", detail: "must be 64–512 hex digits (the token's bytes in hex)")) }
        }
        let versionText = text("osVersion", required: true)
        let version = versionText.flatMap(OSVersion.init)
        if versionText != nil, version == nil {
            errors.append(.init(field: "osVersion", detail: "must be an iOS version such as 17.2 or 18.0.1"))
        } else if token != nil, version?.supportsPushToStart == false {
            errors.append(.init(field: "pushToStartToken", detail: "push-to-start needs iOS 17.2 or later (osVersion is \(versionText ?? ""))"))
        }
        var frequentUpdates = true
        if let value = body["frequentUpdates"], !value.isNull {
            if let flag = value.boolValue { frequentUpdates = flag } else {
                errors.append(.init(field: "frequentUpdates", detail: "must be true or false, got \(value.typeName)"))
            }
        }
        let locale = text("locale", required: false) ?? "en"
        if !isLocale(locale) { errors.append(.init(field: "locale", detail: "must be a locale identifier such as en, en_GB or pt-BR")) }
        guard errors.isEmpty, let environment, let version, let versionText else { throw refusal("device registration", errors) }
        return DeviceRegistration(environment: environment, pushToStartToken: token, osVersion: version, osVersionText: versionText,
                                  frequentUpdates: frequentUpdates, locale: locale)
    }

    /// The activity's push token (`{"pushToken": "…"}`), lowercase, or a `422`.
    static func activityToken(_ body: [String: JSONValue]) throws -> String {
        var errors = unknownFields(body, allowed: ["pushToken"])
        let token = body["pushToken"]?.stringValue.flatMap(DeviceToken.normalize)
        if token == nil { errors.append(.init(field: "pushToken", detail: "must be 64–512 hex digits (the token's bytes in hex)")) }
        guard errors.isEmpty, let token else { throw refusal("activity token", errors) }
        return token
    }

    private static func unknownFields(_ body: [String: JSONValue], allowed: Set<String>) -> [Problem.FieldError] {
        JSONValue.sortedKeys(body).filter { !allowed.contains($0) }.map {
            .init(field: $0, detail: "is not a known field; expected one of \(allowed.sorted().joined(separator: ", "))")
        }
    }

    private static func refusal(_ what: String, _ errors: [Problem.FieldError]) -> Problem {
        Problem.unprocessable("the \(what) has \(errors.count == 1 ? "a bad field" : "bad fields"): "
                              + errors.map(\.path.dotted).joined(separator: ", "), errors: errors)
    }

    /// The bundle id of the path, or a `404` (a malformed id names no app).
    static func bundleID(_ request: HTTPRequest) throws -> String {
        let bundleID = try request.pathParameter("bundle-id")
        guard AppValidation.isValidBundleID(bundleID) else { throw Problem.notFound("\(bundleID.prefix(160)) is not a bundle id") }
        return bundleID
    }

    /// The install id of the path: 1–128 of letters, digits, `.`, `_`, `:`, `-` (a UUID fits).
    static func installID(_ request: HTTPRequest) throws -> String {
        let installID = try request.pathParameter("install-id")
        guard (1...128).contains(installID.utf8.count), installID.utf8.allSatisfy(isIDByte) else {
            throw Problem.badRequest("the install id must be 1–128 letters, digits, '.', '_', ':' or '-' (a UUID fits)",
                                     errors: [.init(field: "install-id", detail: "must be 1–128 of A-Z a-z 0-9 . _ : -")])
        }
        return installID
    }

    /// The follow kind and value of the path.
    static func follow(_ request: HTTPRequest) throws -> (FollowKind, String) {
        let kindText = try request.pathParameter("kind")
        guard let kind = FollowKind(rawValue: kindText) else {
            throw Problem.notFound("one follows a team, a league or a game, not \"\(kindText.prefix(40))\"")
        }
        let value = try request.pathParameter("value")
        guard (1...200).contains(value.count), !value.trimmingCharacters(in: .whitespaces).isEmpty,
              !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw Problem.badRequest("the \(kind.rawValue) must be 1–200 characters of text",
                                     errors: [.init(field: "value", detail: "must be 1–200 printable characters")])
        }
        if kind == .game, (try? GameDraft.checkID(value)) == nil {
            throw Problem.badRequest("a game id is 1–128 letters, digits, '.', '_', ':' or '-'",
                                     errors: [.init(field: "value", detail: "must be a game id")])
        }
        return (kind, value)
    }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-")
    }

    private static func isLocale(_ text: String) -> Bool {
        let parts = text.split(omittingEmptySubsequences: false) { $0 == "_" || $0 == "-" }
        guard text.utf8.count <= 35, let language = parts.first, (2...3).contains(language.count),
              language.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return false }
        return parts.dropFirst().allSatisfy { part in (2...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}
