import CFuzzerDriver
import Crypto
import MockAPNsCore

/// The program's `main`: libFuzzer runs `fuzz` over generated inputs.
@_cdecl("FuzzProviderToken_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    mockapns_run_fuzzer(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}

/// Provider tokens (the `authorization` header): decoding, the claims' checks and the
/// signature check, with a registered key whose identifiers the corpus uses. The first
/// input byte picks the topic and environment; the rest is the header value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let selector = data[0]
    let authorization = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    var state = ProviderTokenConnectionState()
    let topic: String? = selector & 1 == 0 ? "com.example.app" : nil
    let environment: APNsEnvironment = selector & 2 == 0 ? .sandbox : .production
    // Twice on one connection: the second call takes the paths that compare with the first.
    for _ in 0..<2 {
        switch Fixture.verifier.authenticate(
            authorization: authorization, topic: topic, serverEnvironment: environment, state: &state
        ) {
        case .authenticated(let identity): _ = identity
        case .rejected(let rejection): _ = rejection
        }
    }
    return 0
}

private enum Fixture {
    static let verifier: ProviderTokenVerifier = {
        // A fixed key, so that a corpus token signed with it stays valid across runs.
        let privateKey = try? P256.Signing.PrivateKey(rawRepresentation: Array(repeating: UInt8(7), count: 32))
        var registry = ProviderKeyRegistry()
        if let publicKey = privateKey?.publicKey,
           let key = try? ProviderKey(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", environment: .both,
                                      scope: .team, publicKey: publicKey) {
            registry.register(key)
        }
        // 2026-01-01T00:00:00Z, the `iat` the corpus tokens carry.
        return ProviderTokenVerifier(registry: registry, clock: ServerClock(fixedAt: 1_767_225_600_000))
    }()
}
