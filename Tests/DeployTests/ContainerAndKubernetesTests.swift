import Foundation
import Testing
import TestSupport

/// The container recipe and the Kubernetes manifests, checked against the code by
/// Deploy/check-deploy-files.py: the settings the binary knows, the routes the server
/// registers, and the runtime packages of the .deb.
@Suite struct ContainerAndKubernetesTests {
    @Test func manifestsAndContainerfileAgreeWithTheCode() async throws {
        let result = try await DeployFilesCheck.run(deploy: ExternalTool.packageRoot.appendingPathComponent("Deploy"))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("checked: 0 finding(s)"), "\(result.stdout)")
    }

    /// The checker is not a rubber stamp: a probe on a route the server lacks (on the api and on
    /// a worker), a setting that does not exist, a runtime library the image forgot and the
    /// example Secret applied are each named.
    @Test func checkerNamesWhatIsBroken() async throws {
        let copy = try TemporaryFolder("scorecast-deploy-copy")
        defer { copy.remove() }
        let deploy = ExternalTool.packageRoot.appendingPathComponent("Deploy")
        for folder in ["kubernetes", "container"] {
            try FileManager.default.copyItem(at: deploy.appendingPathComponent(folder), to: copy.url.appendingPathComponent(folder))
        }
        try edit(copy.url.appendingPathComponent("kubernetes/api.yaml")) { $0.replacingOccurrences(of: "path: /readyz", with: "path: /ready") }
        try edit(copy.url.appendingPathComponent("kubernetes/configmap.yaml")) { $0 + "  SCORECAST_HTTP_PROT: \"8080\"\n" }
        try edit(copy.url.appendingPathComponent("container/Containerfile")) { $0.replacingOccurrences(of: " libpq5 ", with: " ") }
        try edit(copy.url.appendingPathComponent("kubernetes/kustomization.yaml")) { $0 + "  - secret.example.yaml\n" }
        try edit(copy.url.appendingPathComponent("kubernetes/worker.yaml")) { $0.replacingOccurrences(of: "path: /readyz", with: "path: /nope") }

        let result = try await DeployFilesCheck.run(deploy: copy.url)
        #expect(result.status == 1)
        #expect(result.stdout.contains("readinessProbe asks /ready, which the server does not serve"), "\(result.stdout)")
        #expect(result.stdout.contains("SCORECAST_HTTP_PROT is not a setting"), "\(result.stdout)")
        #expect(result.stdout.contains("lacks runtime packages the .deb depends on: libpq5"), "\(result.stdout)")
        #expect(result.stdout.contains("applies secret.example.yaml, whose placeholders would overwrite a real Secret"), "\(result.stdout)")
        #expect(result.stdout.contains("scorecast-worker: readinessProbe asks /nope"), "\(result.stdout)")
    }

    /// The build stage's `COPY`s bring everything the manifest needs: SwiftPM, given only
    /// those files, resolves the package and its `scorecast` product (no container runtime needed).
    @Test func buildStageCopiesWhatThePackageNeeds() async throws {
        let context = try TemporaryFolder("scorecast-build-context")
        defer { context.remove() }
        let recipe = try String(
            contentsOf: ExternalTool.packageRoot.appendingPathComponent("Deploy/container/Containerfile"), encoding: .utf8)
        let buildStage = recipe.components(separatedBy: "\nFROM ").dropFirst().first ?? ""
        var copied: [String] = []
        for line in buildStage.split(separator: "\n") where line.hasPrefix("COPY ") && !line.contains("--from") {
            let words = line.split(separator: " ").dropFirst().map(String.init)
            guard let destination = words.last, words.count >= 2 else { continue }
            for source in words.dropLast() {
                // `COPY a b` into the WORKDIR: `./` keeps the name, anything else renames.
                let target = destination.hasSuffix("/") ? destination + source : destination
                let into = context.url.appendingPathComponent(target)
                try FileManager.default.createDirectory(at: into.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: ExternalTool.packageRoot.appendingPathComponent(source), to: into)
                copied.append(source)
            }
        }
        #expect(copied.contains("Package.swift") && copied.contains("Sources"), "build stage copies \(copied)")
        let described = try await ExternalTool.run(
            "swift", ["package", "describe", "--type", "json"], timeout: .seconds(300), currentDirectory: context.url)
        #expect(described.status == 0, "swift package describe in the build stage's files: \(described.stderr)")
        let package = (try? JSONSerialization.jsonObject(with: Data(described.stdout.utf8))) as? [String: Any]
        let products = (package?["products"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
        #expect(products.contains("scorecast"), "products: \(products)")
    }

    /// Builds the image and asks its HEALTHCHECK's route, when this machine has a container
    /// runtime that answers; says so plainly when it has none.
    @Test func imageBuildsAndServesHealthWhereARuntimeExists() async throws {
        var runtime: String?
        for candidate in ["podman", "docker"] {
            if let info = try? await ExternalTool.run(candidate, ["info"], timeout: .seconds(20)), info.status == 0 {
                runtime = candidate
                break
            }
        }
        guard let runtime else {
            print("ContainerAndKubernetesTests: no container runtime answers here (podman, or docker with a daemon): "
                + "the image was not built; its recipe was checked structurally only")
            return
        }
        let tag = "scorecast-test:\(UUID().uuidString.prefix(8).lowercased())"
        let build = try await ExternalTool.run(
            runtime, ["build", "-f", "Deploy/container/Containerfile", "-t", tag, "."],
            timeout: .seconds(3_600), currentDirectory: ExternalTool.packageRoot)
        #expect(build.status == 0, "\(build.stderr)")
        defer { Task { _ = try? await ExternalTool.run(runtime, ["rmi", "-f", tag]) } }
        // `config` needs no database: the image's binary runs and knows the image's settings.
        let config = try await ExternalTool.run(runtime, ["run", "--rm", tag, "config", "--json"], timeout: .seconds(120))
        #expect(config.status == 0 && config.stdout.contains("\"SCORECAST_HTTP_HOST\""), "\(config.stderr)")
        let healthcheck = try await ExternalTool.run(
            runtime, ["run", "--rm", "--entrypoint", "sh", tag, "-c", "command -v curl && test \"$(id -u)\" = 10001"])
        #expect(healthcheck.status == 0, "curl (for HEALTHCHECK) missing or not running as uid 10001: \(healthcheck.stderr)")
    }

    private func edit(_ file: URL, _ change: (String) -> String) throws {
        try change(try String(contentsOf: file, encoding: .utf8)).write(to: file, atomically: true, encoding: .utf8)
    }
}

/// Runs Deploy/check-deploy-files.py with what the code says.
enum DeployFilesCheck {
    static func run(deploy: URL) async throws -> ExternalTool.Result {
        let scratch = try TemporaryFolder("scorecast-deploy-check")
        defer { scratch.remove() }
        let settings = scratch.url.appendingPathComponent("settings.json")
        let binary = try ScorecastProcess.binary()
        let config = try await ExternalTool.run("env", ["-i", binary.path, "config", "--json"])
        guard config.status == 0 else { throw TestSupportError("scorecast config --json failed: \(config.stderr)") }
        try config.stdout.write(to: settings, atomically: true, encoding: .utf8)
        let routes = scratch.url.appendingPathComponent("routes.txt")
        try serverRoutes().joined(separator: "\n").write(to: routes, atomically: true, encoding: .utf8)
        let depends = try await DebianPackage.field("Depends", of: try await DebianPackage.debug())
        return try await ExternalTool.run(
            "python3",
            [ExternalTool.packageRoot.appendingPathComponent("Deploy/check-deploy-files.py").path,
             "--settings", settings.path, "--routes", routes.path, "--depends", "Depends: \(depends)", "--deploy", deploy.path])
    }

    /// The GET routes the service registers (`router.get("/…")` in the modules that add routes).
    static func serverRoutes() throws -> [String] {
        var routes: Set<String> = []
        for module in ["Server", "Devices", "Statistics"] {
            let sources = ExternalTool.packageRoot.appendingPathComponent("Sources/\(module)")
            guard let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
                throw TestSupportError("cannot read \(sources.path)")
            }
            for case let file as URL in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                for match in text.matches(of: /router\.get\("(\/[^"]*)"/) { routes.insert(String(match.output.1)) }
            }
        }
        guard routes.contains("/healthz") else { throw TestSupportError("no route /healthz found in Sources/Server: has the router changed?") }
        return routes.sorted()
    }
}
