// Embedded start-up: from `MockAPNsServer(configuration:)` until `start()` returns with every
// listener bound (HTTP/2, gateway, feedback, control API), as a package's tests that embed
// the server see it. Benchmarks/startup.sh builds this in release and runs it.
//
//   EmbeddedStartup CERT_DIR [STARTS]     (default 11; the first start is reported apart)
import Foundation
import MockAPNs

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: EmbeddedStartup CERT_DIR [STARTS]\n".utf8))
    exit(2)
}
let starts = arguments.count >= 3 ? Int(arguments[2]) ?? 11 : 11
guard starts >= 2 else {
    FileHandle.standardError.write(Data("STARTS must be at least 2 (the first start is reported apart)\n".utf8))
    exit(2)
}

var samples: [Double] = []
for _ in 0..<starts {
    var configuration = MockAPNsConfiguration()
    configuration.http2Port = 0
    configuration.legacy.gatewayPort = 0
    configuration.legacy.feedbackPort = 0
    configuration.controlPort = 0
    configuration.certificateDirectory = arguments[1]
    let clock = ContinuousClock()
    let started = clock.now
    let server = MockAPNsServer(configuration: configuration)
    _ = try await server.start()
    let elapsed = started.duration(to: clock.now)
    samples.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    try await server.shutdown(gracePeriod: .zero)
}
// The first start also loads code and certificates for the first time in the process.
let warm = samples.dropFirst().sorted()
func ms(_ value: Double) -> String { String(format: "%.2f", value) }
print("embedded start: first \(ms(samples[0])) ms; then median \(ms(warm[warm.count / 2])) ms, "
      + "min \(ms(warm[0])) ms, max \(ms(warm[warm.count - 1])) ms over \(warm.count) starts")
