import MockAPNsWire
@testable import MockAPNsCore

/// A well-formed HTTP/2 push that each test bends in one way.
struct PushRequestFixture {
    static let token = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
    static let apnsID = "123e4567-e89b-42d3-a456-426614174000"
    static let topic = "com.example.app"
    static let payload = Array(#"{"aps":{"alert":"Hello"}}"#.utf8)

    var headers: [HTTPHeader] = [
        HTTPHeader(name: ":method", value: "POST"),
        HTTPHeader(name: ":scheme", value: "https"),
        HTTPHeader(name: ":path", value: "/3/device/\(token)"),
        HTTPHeader(name: ":authority", value: "api.sandbox.push.apple.com"),
        HTTPHeader(name: "apns-id", value: apnsID),
        HTTPHeader(name: "apns-topic", value: topic),
        HTTPHeader(name: "apns-push-type", value: "alert"),
        HTTPHeader(name: "apns-priority", value: "10"),
    ]
    var body: [UInt8] = payload

    /// Replaces the value of `name`, or appends the header when absent.
    func setting(_ name: String, _ value: String) -> Self {
        var copy = self
        if let index = copy.headers.firstIndex(where: { $0.name == name }) {
            copy.headers[index].value = value
        } else {
            copy.headers.append(HTTPHeader(name: name, value: value))
        }
        return copy
    }

    /// Appends `name` even when it is already present.
    func adding(_ name: String, _ value: String) -> Self {
        var copy = self
        copy.headers.append(HTTPHeader(name: name, value: value))
        return copy
    }

    func removing(_ name: String) -> Self {
        var copy = self
        copy.headers.removeAll { $0.name == name }
        return copy
    }

    func token(_ token: String) -> Self {
        setting(":path", "/3/device/\(token)")
    }

    func body(_ bytes: [UInt8]) -> Self {
        var copy = self
        copy.body = bytes
        return copy
    }

    func body(_ text: String) -> Self {
        body(Array(text.utf8))
    }

    var request: ProviderRequest {
        ProviderRequest(headers: headers, body: body)
    }
}
