import Foundation
import Testing
import TestSupport

/// Debian's own package checker on the `.deb` of Deploy/package.sh: no errors. The test package
/// is the debug build, which links the toolchain's Swift runtime by RUNPATH and is not
/// stripped; the release build links the runtime statically and strips the binary, so those
/// two tags are the debug build's alone and the only errors allowed here.
@Suite struct LintianTests {
    static let debugOnlyErrors: Set<String> = ["custom-library-search-path", "unstripped-binary-or-object"]

    @Test func thePackageHasNoLintianErrors() async throws {
        let deb = try await DebianPackage.debug()
        let result = try await ExternalTool.run("lintian", ["--no-tag-display-limit", deb.path], timeout: .seconds(600))
        let errors = result.stdout.split(separator: "\n").filter { $0.hasPrefix("E: ") }
        let unexpected = errors.filter { line in
            !Self.debugOnlyErrors.contains { line.contains("scorecast: \($0) ") }
        }
        #expect(unexpected.isEmpty, "\(unexpected.joined(separator: "\n"))")
        // The two files lintian asked for are there.
        let contents = try await ExternalTool.run("dpkg-deb", ["--contents", deb.path])
        #expect(contents.stdout.contains("./usr/share/doc/scorecast/copyright"))
        #expect(contents.stdout.contains("./usr/share/doc/scorecast/changelog.gz"))
    }
}
