import Clocks
import Devices
import HTTPServer
import Postgres
import ServiceBase

/// The device side's HTTP routes: the app API (`/v1/apps/{bundle-id}/devices/…`), game reads
/// (`/v1/games/{id}`, `/v1/games`) and kick-off progress (`/v1/stats/devices`, an operator
/// route behind `access`).
package enum DeviceAPI {
    /// Adds every device route to `router`, with rate limits from `settings` timed by `clock`;
    /// devices are seen at `clock`'s time.
    package static func register(
        on router: inout Router, pool: PostgresPool, settings: DeviceSettings, access: OpsAccess, clock: any ServiceClock
    ) {
        let store = ClientKeyStore(pool: pool)
        let guardian = AppAPIGuard(
            authenticator: ClientAuthenticator(lookup: { try await store.find(prefix: $0) }),
            perDevice: RequestRateLimiter(perMinute: settings.deviceRatePerMinute, burst: settings.rateBurst, clock: clock),
            perAddress: RequestRateLimiter(perMinute: settings.addressRatePerMinute, burst: settings.rateBurst, clock: clock))
        AppDevicesEndpoint(pool: pool, guardian: guardian, clock: clock).register(on: &router)
        GamesEndpoint(pool: pool, guardian: guardian).register(on: &router)
        router.get("/v1/stats/devices", gate: access.gate) { request in
            do {
                return try .json(try await KickoffStore(pool: pool).progress())
            } catch let error as PostgresError {
                request.logger.error("kick-off progress failed", ["error": error.message])
                throw Problem.serviceUnavailable("the database is unavailable")
            }
        }
    }
}
