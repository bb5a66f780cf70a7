import CFuzzerDriver
import MockAPNsCore
import MockAPNsWire

/// The program's `main`: libFuzzer runs `fuzz` over generated inputs.
@_cdecl("FuzzHTTP2RequestValidator_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    mockapns_run_fuzzer(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}

/// Apple's request rules for the HTTP/2 provider API. The input is a header list, one
/// `name: value` per line, then an empty line and the body; the first byte picks options.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let selector = data[0]
    let bytes = UnsafeBufferPointer(start: data + 1, count: size - 1)
    var headers: [HTTPHeader] = []
    var body: [UInt8] = []
    var lineStart = 0
    var index = 0
    while index <= bytes.count {
        if index == bytes.count || bytes[index] == UInt8(ascii: "\n") {
            let line = bytes[lineStart..<index]
            if line.isEmpty {
                body = Array(bytes[min(index + 1, bytes.count)...])
                break
            }
            // The separator is the first ": " after the name's first byte (":path: /x").
            let text = String(decoding: line, as: UTF8.self)
            if let separator = text.dropFirst().range(of: ": ") {
                headers.append(HTTPHeader(name: String(text[..<separator.lowerBound]),
                                          value: String(text[separator.upperBound...])))
            } else {
                headers.append(HTTPHeader(name: text, value: ""))
            }
            lineStart = index + 1
        }
        index += 1
    }
    var options = ValidationOptions.default
    options.acceptsUppercaseDeviceTokens = selector & 1 != 0
    let request = ProviderRequest(headers: headers, body: body)
    switch HTTP2RequestValidator(options: options).validate(request) {
    case .valid(let push):
        precondition(!push.deviceToken.isEmpty, "a valid request names a device token")
    case .invalid(let reason, let apnsID):
        _ = (reason, apnsID)
    }
    return 0
}
