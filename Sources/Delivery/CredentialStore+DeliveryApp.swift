import APNs
import Registry

// The key store is the registry's; the apps of claimed sends (`DeliveryApp`) are delivery's.
extension CredentialStore {
    /// The credentials of the app of a claimed send.
    package func credentials(for app: DeliveryApp) async throws(APNsClientError) -> APNsCredentials {
        try await credentials(app.keyReference)
    }

    /// Forgets the key of the app of a claimed send (APNs refused it).
    package func invalidate(app: DeliveryApp) {
        invalidate(app.keyReference)
    }
}

extension DeliveryApp {
    /// The key this app's sends are signed with.
    package var keyReference: CredentialStore.KeyReference {
        CredentialStore.KeyReference(teamID: teamID, keyID: keyID, path: keyPath)
    }
}
