import Foundation

/// A Markdown file of the repository, read for what the documentation tests check: its relative
/// links and its headings' anchors (as GitHub renders them).
struct MarkdownFile {
    /// The repository's root folder.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// README.md and every `.md` file under docs/.
    static func documentation() throws -> [MarkdownFile] {
        var files = [try MarkdownFile(packageRoot.appendingPathComponent("README.md"))]
        let docs = packageRoot.appendingPathComponent("docs")
        let found = FileManager.default.enumerator(at: docs, includingPropertiesForKeys: nil)?.allObjects ?? []
        for case let url as URL in found where url.pathExtension == "md" {
            files.append(try MarkdownFile(url))
        }
        return files.sorted { $0.url.path < $1.url.path }
    }

    let url: URL
    /// The lines outside fenced code blocks.
    let proseLines: [String]

    init(_ url: URL) throws {
        self.url = url
        var inFence = false
        var lines: [String] = []
        for line in try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n") {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if !inFence { lines.append(line) }
        }
        self.proseLines = lines
    }

    /// The path from the repository's root, for messages.
    var name: String { String(url.path.dropFirst(Self.packageRoot.path.count + 1)) }

    /// Every link target that is neither a web address nor mail: `path`, `path#anchor`, `#anchor`.
    var relativeLinks: [String] {
        proseLines.flatMap { line in
            // A link shown as code (`[text](target)`) is not a link.
            line.replacing(/`[^`]*`/, with: "").matches(of: /\]\(([^)\s]+)\)/).map { String($0.output.1) }
        }.filter { !$0.contains("://") && !$0.hasPrefix("mailto:") }
    }

    /// The anchors of the headings, as GitHub makes them: lower case, punctuation dropped, spaces
    /// as hyphens, a repeated one suffixed `-1`, `-2`…
    var anchors: Set<String> {
        var seen: [String: Int] = [:]
        var result: Set<String> = []
        for line in proseLines where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            let slug = String(title.lowercased().compactMap { character -> Character? in
                if character == " " { return "-" }
                return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
            })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            result.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return result
    }
}
