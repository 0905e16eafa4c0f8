import ScorecastCrypto

extension Configuration {
    /// The keyring of `SCORECAST_SECRETS_KEY` or `SCORECAST_SECRETS_KEY_FILE` (not both); a
    /// key that is not 64 hex characters, or a file that cannot be read, is a problem naming
    /// the setting (never the key).
    static func secretsKeyring(_ env: inout EnvironmentReader) -> SealingKeyring? {
        let text = env.secret(
            .secretsKey, validate: { text in (try? SealingKeyring(hexKeys: Self.keyList(text))) != nil },
            expectation: "64 hex characters (`openssl rand -hex 32`), previous keys after commas")
        let file = env.optionalString(.secretsKeyFile)
        switch (text, file) {
        case (let text?, nil):
            return try? SealingKeyring(hexKeys: keyList(text))
        case (nil, let file?):
            do {
                return try SealingKeyring.load(file: file)
            } catch {
                env.problem("SCORECAST_SECRETS_KEY_FILE: \(error.context)")
                return nil
            }
        case (.some, .some):
            env.problem("set SCORECAST_SECRETS_KEY or SCORECAST_SECRETS_KEY_FILE, not both")
            return nil
        case (nil, nil):
            return nil
        }
    }

    private static func keyList(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
