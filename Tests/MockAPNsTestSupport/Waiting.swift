import Foundation
import XCTest

/// A wait that ran out of time: thrown, so the test fails there and says what it waited for.
package struct WaitTimeout: Error, CustomStringConvertible {
    package let description: String

    package init(description: String) {
        self.description = description
    }
}

/// Waits until `condition` holds, looking every `interval`; after `timeout` it throws
/// `WaitTimeout`, so a test can never go on as if the event had happened. For conditions
/// with no event to await (a file another process writes, a counter on another thread).
package func waitUntil(
    _ what: @autoclosure () -> String, timeout: Duration = .seconds(10), interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !(try await condition()) {
        guard clock.now < deadline else { throw WaitTimeout(description: "waited \(timeout) for \(what())") }
        try await Task.sleep(for: interval)
    }
}

/// `waitUntil` for synchronous tests.
package func waitUntilSync(
    _ what: @autoclosure () -> String, timeout: Duration = .seconds(10), interval: Duration = .milliseconds(10),
    _ condition: () throws -> Bool
) throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !(try condition()) {
        guard clock.now < deadline else { throw WaitTimeout(description: "waited \(timeout) for \(what())") }
        Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
    }
}

/// The ports file `mockapns serve --ports-file` writes once every listener is bound.
package enum PortsFile {
    /// The ports, once the file names `listener`; throws `WaitTimeout` after `timeout`.
    package static func wait(_ path: String, for listener: String = "http2", timeout: Duration = .seconds(20)) throws -> [String: Int] {
        var ports: [String: Int] = [:]
        try waitUntilSync("\(path) to name the \(listener) port", timeout: timeout, interval: .milliseconds(20)) {
            guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return false }
            // The listeners' ports are the numbers at the top; "environments" repeats them per environment.
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            ports = object.compactMapValues { $0 as? Int }
            return ports[listener] != nil
        }
        return ports
    }
}
