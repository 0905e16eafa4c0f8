/// How an app wants alert text: localized on the phone, or plain English from the server.
public enum AlertStyle: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `loc-key`/`loc-args` (the default): the phone shows the app's own translation of the key
    /// from ``AlertCatalog/stringCatalog`` (the package's `Localizable.xcstrings`); without
    /// one, it shows the key itself.
    case localized
    /// Plain English text, the catalog's formats with the arguments filled in: for apps that do
    /// not ship the String Catalog.
    case plainText

    /// The text shown in logs and error messages.
    public var description: String { rawValue }
}
