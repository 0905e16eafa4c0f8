import JSON

extension AlertCatalog {
    /// The English String Catalog (`Localizable.xcstrings`) of every alert key, laid out as Xcode
    /// writes it (two-space indent, `" : "`, keys sorted), so the file in the ScorecastActivity
    /// package is byte for byte this text and Xcode leaves it unchanged when it opens it. Each
    /// entry's comment names its arguments, for translators.
    public static var stringCatalog: String {
        let entries = allTemplates.map { template in
            let comment = template.arguments.isEmpty
                ? "No arguments."
                : "Arguments: " + template.arguments.enumerated().map { "\($0.offset + 1) \($0.element.rawValue)" }.joined(separator: ", ") + "."
            return """
                    \(quoted(template.key)) : {
                      "comment" : \(quoted(comment)),
                      "extractionState" : "manual",
                      "localizations" : {
                        "en" : {
                          "stringUnit" : {
                            "state" : "translated",
                            "value" : \(quoted(template.format))
                          }
                        }
                      }
                    }
                """
        }
        return """
            {
              "sourceLanguage" : "en",
              "strings" : {
            \(entries.joined(separator: ",\n"))
              },
              "version" : "1.0"
            }

            """
    }

    /// `text` as a JSON string literal.
    private static func quoted(_ text: String) -> String {
        (try? JSONValue.string(text).encodedString()) ?? "\"\""
    }
}
