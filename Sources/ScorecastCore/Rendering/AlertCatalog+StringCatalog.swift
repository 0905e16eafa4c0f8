import JSON

extension AlertCatalog {
    /// The String Catalog (`Localizable.xcstrings`) of every alert key in every one of
    /// ``languages``, laid out as Xcode writes it (two-space indent, `" : "`, keys sorted), so the
    /// file in the ScorecastActivity package is byte for byte this text and Xcode leaves it
    /// unchanged when it opens it. Each entry's comment tells a translator where the text shows
    /// and what its arguments are. A key missing in a language is left out of that language
    /// (the phone then shows English), and the completeness test fails.
    public static var stringCatalog: String {
        let entries = allTemplates.map { template in
            let localizations = languages.compactMap { language in
                format(of: template, in: language).map { format in
                    """
                            \(quoted(language)) : {
                              "stringUnit" : {
                                "state" : "translated",
                                "value" : \(quoted(format))
                              }
                            }
                    """
                }
            }
            return """
                    \(quoted(template.key)) : {
                      "comment" : \(quoted(comment(of: template))),
                      "extractionState" : "manual",
                      "localizations" : {
                \(localizations.joined(separator: ",\n"))
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

    /// The translator's comment of `template`: where it shows, then its arguments in order.
    static func comment(of template: Template) -> String {
        let arguments = template.arguments.isEmpty
            ? "No arguments."
            : "Arguments: " + template.arguments.enumerated().map { "\($0.offset + 1) \($0.element.translatorNote)" }.joined(separator: ", ") + "."
        return template.shows + " " + arguments
    }

    /// `text` as a JSON string literal.
    private static func quoted(_ text: String) -> String {
        (try? JSONValue.string(text).encodedString()) ?? "\"\""
    }
}
