import Foundation
import TestSupport

/// A tiny HTTP server (Python's `http.server`) that serves fixture folders for the dashboard
/// test: `/<variant>/dashboard`, `/<variant>/dashboard/dashboard.css` and `.js`,
/// `/<variant>/v1/stats` and `/<variant>/v1/stats/live` map to `dashboard.html`,
/// `dashboard.css`, `dashboard.js`, `stats.json` and `live.json` in `<root>/<variant>/` (and
/// `/<variant>/v1/games/<id>/live` to `game.json`, when the folder has one), and every request path
/// (with its query) is appended to `<root>/<variant>/requests.log`.
final class FixtureServer {
    static let script = """
        import http.server, os, signal, sys, threading
        # Children of the test process inherit its blocked signal mask: unblock, and also exit
        # when the test process goes away (standard input reaches end of file).
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        def watch_parent():
            sys.stdin.buffer.read()
            os._exit(0)
        threading.Thread(target=watch_parent, daemon=True).start()
        root = sys.argv[1]
        routes = {"dashboard": ("dashboard.html", "text/html; charset=utf-8"),
                  "dashboard/dashboard.css": ("dashboard.css", "text/css; charset=utf-8"),
                  "dashboard/dashboard.js": ("dashboard.js", "text/javascript; charset=utf-8"),
                  "v1/stats": ("stats.json", "application/json"),
                  "v1/stats/live": ("live.json", "application/json"),
                  "v1/games/live": ("game.json", "application/json")}
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                path = self.path.split("?", 1)[0]
                variant, _, rest = path.lstrip("/").partition("/")
                if rest.startswith("v1/games/") and rest.endswith("/live") and os.path.exists(os.path.join(root, variant, "game.json")):
                    rest = "v1/games/live"
                if not variant.isalnum() or rest not in routes:
                    self.send_error(404)
                    return
                name, content_type = routes[rest]
                with open(os.path.join(root, variant, "requests.log"), "a") as log:
                    log.write(self.path + "\\n")
                with open(os.path.join(root, variant, name), "rb") as f:
                    body = f.read()
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    let root: URL
    let port: Int
    private let server: ServerProcess
    private var stopped = false

    /// Starts the server over `root` (on the project's one process runner, with a lifeline
    /// input) and waits until it says its port.
    init(root: URL) async throws {
        self.root = root
        let server = try ServerProcess("fixture-server", "python3", ["-c", Self.script, root.path])
        let line: String
        do {
            line = try await server.firstLine()
        } catch {
            server.stop()
            throw error
        }
        guard let port = Int(line.trimmingCharacters(in: .whitespaces)) else {
            server.stop()
            throw TestSupportError("the python3 fixture server printed \"\(line)\", not its port")
        }
        self.server = server
        self.port = port
    }

    /// The URL of `path` under `variant`.
    func url(_ variant: String, _ path: String) -> String {
        "http://127.0.0.1:\(port)/\(variant)/\(path)"
    }

    /// The request paths `variant` has served so far.
    func requests(_ variant: String) -> [String] {
        let log = root.appendingPathComponent(variant).appendingPathComponent("requests.log")
        return ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Stops the server (its input ends, then SIGKILL) and reaps it; once.
    func stop() {
        guard !stopped else { return }
        stopped = true
        server.stop()
    }

    deinit { stop() }
}
