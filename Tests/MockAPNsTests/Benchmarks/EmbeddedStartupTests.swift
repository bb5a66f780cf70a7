import Foundation
import MockAPNs
import XCTest

/// Embedded start-up: from `MockAPNsServer(configuration:)` until `start()` returns with every
/// listener bound (HTTP/2, gateway, feedback, control API), as a test that embeds the server
/// sees it. Prints the figures; `Benchmarks/startup.sh` reports them. The assertion is only a
/// guard against a pathological regression; the goal (under 20 ms) is reported, not enforced.
final class EmbeddedStartupTests: XCTestCase {
    func testEmbeddedStartTime() async throws {
        var samples: [Double] = []
        for _ in 0..<11 {
            var configuration = MockAPNsConfiguration()
            configuration.http2Port = 0
            configuration.legacy.gatewayPort = 0
            configuration.legacy.feedbackPort = 0
            configuration.control.port = 0
            configuration.certificateDirectory = Fixtures.certificateDirectory
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
        let median = warm[warm.count / 2]
        func ms(_ value: Double) -> String { String(format: "%.2f", value) }
        print("embedded start: first \(ms(samples[0])) ms; then median \(ms(median)) ms, min \(ms(warm.first!)) ms, max \(ms(warm.last!)) ms over \(warm.count) starts")
        XCTAssertLessThan(median, 2000, "embedded start took \(ms(median)) ms")
    }
}
