import CFuzzerDriver
import Crypto
import MockAPNsCore
import MockAPNsWebPush
import MockAPNsWire

/// The program's `main`: libFuzzer runs `fuzz` over generated inputs.
@_cdecl("FuzzWebPush_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    mockapns_run_fuzzer(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}

/// A web push request to a fixed subscription: the header lines (`name: value`, one per line)
/// up to the first NUL byte, the body after it. The decision reads the VAPID token, the
/// headers and decrypts the body; the body alone is also decrypted directly, the aes128gcm
/// record parser being where hostile bytes go deepest.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let split = bytes.firstIndex(of: 0) ?? size
    let head = String(decoding: bytes[..<split], as: UTF8.self)
    let body = split < size ? Array(bytes[(split + 1)...]) : []
    var headers: [HTTPHeader] = []
    for line in head.split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers.append(HTTPHeader(name: line[..<colon].lowercased(), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
    }
    let request = WebPushRequest(method: "POST", path: "/" + Fixture.subscription.id, fields: headers, body: body)
    let decision = Fixture.decider.decide(request, origins: ["https://127.0.0.1:2200"])
    _ = decision.status
    _ = Fixture.subscription.decrypt(body)
    return 0
}

private enum Fixture {
    /// Fixed keys, so that corpus inputs made with them stay meaningful across runs.
    static let subscription: WebPushSubscription = {
        let browserKey = (try? P256.KeyAgreement.PrivateKey(rawRepresentation: Array(repeating: UInt8(9), count: 32)))
            ?? P256.KeyAgreement.PrivateKey()
        let serverKey = (try? P256.Signing.PrivateKey(rawRepresentation: Array(repeating: UInt8(7), count: 32)))
            ?? P256.Signing.PrivateKey()
        return WebPushSubscription(
            id: "QfuzzSubscription", applicationServerKey: Array(serverKey.publicKey.x963Representation),
            privateKey: browserKey, auth: Array(repeating: 3, count: 16), createdAtMilliseconds: 0
        )
    }()
    static let decider: WebPushDecider = {
        let subscriptions = WebPushSubscriptions()
        subscriptions.add(subscription)
        // 2026-01-01T00:00:00Z.
        return WebPushDecider(subscriptions: subscriptions, options: WebPushOptions(), clock: ServerClock(fixedAt: 1_767_225_600_000))
    }()
}
