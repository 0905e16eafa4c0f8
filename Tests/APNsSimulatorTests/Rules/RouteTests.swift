@testable import APNsSimulator
import Testing

/// Which operation a path names, per port.
@Suite struct RouteTests {
    @Test(arguments: [
        ("/4/broadcasts/apps/com.example.app", APNsPort.send, APNsRoute.broadcast(bundleID: "com.example.app")),
        ("/4/broadcasts/apps/com.example.app?x=1", .send, .broadcast(bundleID: "com.example.app")),
        ("/3/device/abcdef", .send, .device(token: "abcdef")),
        ("/3/device/", .send, .device(token: "")),
        ("/1/apps/com.example.app/channels", .management, .channels(bundleID: "com.example.app")),
        ("/1/apps/com.example.app/all-channels", .management, .allChannels(bundleID: "com.example.app")),
    ])
    func knownPaths(path: String, port: APNsPort, route: APNsRoute) {
        #expect(APNsRoute.match(path: path, port: port) == route)
    }

    @Test(arguments: [
        ("/4/broadcasts/apps/", APNsPort.send),
        ("/4/broadcasts/apps/a/b", .send),
        ("/4/broadcasts/apps/com.example.app", .management),
        ("/1/apps/com.example.app/channels", .send),
        ("/1/apps//channels", .management),
        ("/1/apps/com.example.app/channel", .management),
        ("/1/apps/com.example.app/channels/extra", .management),
        ("/3/device/a/b", .send),
        ("", .send),
        ("/", .management),
    ])
    func unknownPaths(path: String, port: APNsPort) {
        #expect(APNsRoute.match(path: path, port: port) == nil)
    }
}
