@testable import APNsSimulator
import Testing

/// The `authorization` header's shape.
@Suite struct ProviderAuthenticationTests {
    @Test func bearerParsing() {
        #expect(ProviderAuthentication.bearerToken("bearer abc.def.ghi") == "abc.def.ghi")
        #expect(ProviderAuthentication.bearerToken("Bearer abc") == "abc")
        #expect(ProviderAuthentication.bearerToken("bearer   ") == nil)
        #expect(ProviderAuthentication.bearerToken("basic abc") == nil)
        #expect(ProviderAuthentication.bearerToken("bearer") == nil)
    }
}
