import Foundation
import Testing

/// What the README and docs/ promise a reader: every relative link opens a file and every anchor
/// a heading, and every `apns.md §N` the code cites is a section of docs/apns.md.
@Suite struct DocumentationTests {
    @Test func everyRelativeLinkAndAnchorResolves() throws {
        let files = try MarkdownFile.documentation()
        #expect(files.count > 1)
        var broken: [String] = []
        for file in files {
            for link in file.relativeLinks {
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let path = parts[0].removingPercentEncoding ?? parts[0]
                let target = path.isEmpty ? file.url : file.url.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
                guard FileManager.default.fileExists(atPath: target.path) else {
                    broken.append("\(file.name): \(link) (no such file)")
                    continue
                }
                if parts.count == 2, target.pathExtension == "md", !(try MarkdownFile(target).anchors.contains(parts[1])) {
                    broken.append("\(file.name): \(link) (no such heading)")
                }
            }
        }
        #expect(broken.isEmpty, "\(broken.joined(separator: "\n"))")
    }

    @Test func theAnchorsAreTheOnesGitHubMakes() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("anchors-\(UUID().uuidString).md")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("# The `POST /v1/events` API\n## Why libcurl?\n## Why libcurl?\n```\n# not a heading\n```\n".utf8).write(to: file)
        #expect(try MarkdownFile(file).anchors == ["the-post-v1events-api", "why-libcurl", "why-libcurl-1"])
    }

    @Test func everyAPNsSectionTheCodeCitesIsAHeadingOfDocsAPNs() throws {
        let headings = try MarkdownFile(MarkdownFile.packageRoot.appendingPathComponent("docs/apns.md")).proseLines
            .compactMap { line in line.firstMatch(of: #/^## (\d+)\. /#).map { Int($0.output.1)! } }
        #expect(headings == Array(1...headings.count), "docs/apns.md's sections are numbered 1, 2, 3…")
        var cited: [String: Set<Int>] = [:]
        for file in try swiftFiles() {
            let text = try String(contentsOf: file, encoding: .utf8)
            // `apns.md §7`, `apns.md §7–8`, `apns.md` §7
            for match in text.matches(of: /apns\.md`? §(\d+)(?:[–-](\d+))?/) {
                let first = Int(match.output.1)!
                let last = match.output.2.flatMap { Int($0) } ?? first
                cited[file.lastPathComponent, default: []].formUnion(first...max(first, last))
            }
        }
        #expect(cited.count > 10, "the code cites apns.md")
        let unresolved = cited.filter { !$0.value.isSubset(of: Set(headings)) }
        #expect(unresolved.isEmpty, "sections cited but not in docs/apns.md: \(unresolved)")
    }

    @Test func noTrackerNumbersOrRunLettersInTheCodeOrTheCurrentDocs() throws {
        // Spelled in pieces so this file does not match itself.
        let pattern = try Regex("iss" + #"ue [0-9]|\brun [A-R]\b"#)
        var found: [String] = []
        let docs = try MarkdownFile.documentation().map(\.url).filter { $0.lastPathComponent != "performance-log.md" }
        for file in try swiftFiles() + docs {
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            for (number, line) in lines.enumerated() where line.contains(pattern) {
                found.append("\(file.path):\(number + 1): \(line)")
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// Package.swift and every Swift file of Sources/ and Tests/.
    private func swiftFiles() throws -> [URL] {
        var files = [MarkdownFile.packageRoot.appendingPathComponent("Package.swift")]
        for folder in ["Sources", "Tests"] {
            let found = FileManager.default.enumerator(
                at: MarkdownFile.packageRoot.appendingPathComponent(folder), includingPropertiesForKeys: nil)?.allObjects ?? []
            for case let url as URL in found where url.pathExtension == "swift" { files.append(url) }
        }
        return files
    }
}
