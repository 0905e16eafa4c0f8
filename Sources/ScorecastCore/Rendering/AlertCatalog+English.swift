extension AlertCatalog {
    /// The English text a phone shows for `loc-key` `key` with `loc-args` `arguments`: the
    /// String Catalog's format filled in; for a key the catalog lacks, the key itself filled in,
    /// as the device does (apns.md §4).
    public static func englishText(key: String, arguments: [String]) -> String {
        fill(formatsByKey[key] ?? key, with: arguments)
    }

    private static let formatsByKey: [String: String] = Dictionary(
        allTemplates.map { ($0.key, $0.format) }, uniquingKeysWith: { first, _ in first })
}
