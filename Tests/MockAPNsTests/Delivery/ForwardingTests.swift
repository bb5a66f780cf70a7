import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// Forwarding what is delivered, end to end: real pushes over HTTP/2, a stand-in for
/// `xcrun simctl push` that records its arguments and standard input, and a local HTTP
/// receiver; then the ones that fail, stall or fall behind, each diagnosed in the journal
/// while every push is still answered 200.
final class ForwardingTests: XCTestCase {
    private let token = Fixtures.token
    private var server: MockAPNsServer?
    private var folder = ""

    override func setUp() async throws {
        folder = Fixtures.temporaryPath("forwarding")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        try await server?.shutdown()
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func start(_ adjust: (inout MockAPNsConfiguration.DeliverySettings) -> Void) async throws -> BoundPorts {
        let (server, ports) = try await TestServer.start { configuration in adjust(&configuration.delivery) }
        self.server = server
        return ports
    }

    /// A stand-in for `xcrun simctl push`: a shell script that keeps each call's arguments and
    /// standard input in numbered files, then runs `then` (say, `exit 3`).
    private func standIn(then tail: String = "") throws -> String {
        let path = folder + "/simctl"
        let script = """
            #!/bin/sh
            n=$(ls "\(folder)" | grep -c '^args-')
            printf '%s\\n' "$@" > "\(folder)/args-$n.tmp"
            cat > "\(folder)/input-$n"
            mv "\(folder)/args-$n.tmp" "\(folder)/args-$n"
            \(tail)
            """
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    /// The calls the stand-in recorded: arguments and standard input, in order.
    private func calls() -> [(arguments: [String], input: String)] {
        var found: [(arguments: [String], input: String)] = []
        var index = 0
        while let arguments = try? String(contentsOfFile: "\(folder)/args-\(index)", encoding: .utf8) {
            let input = (try? String(contentsOfFile: "\(folder)/input-\(index)", encoding: .utf8)) ?? ""
            found.append((arguments.split(separator: "\n").map(String.init), input))
            index += 1
        }
        return found
    }

    @discardableResult
    private func push(_ ports: BoundPorts, topic: String = "com.example.app", pushType: String = "alert", body: String) throws -> CurlResponse {
        let response = try CurlClient(port: ports.http2).send(
            path: "/3/device/\(token)", headers: [("apns-topic", topic), ("apns-push-type", pushType)], body: body)
        XCTAssertEqual(response.status, 200, "forwarding never changes the answer")
        return response
    }

    /// Waits for a diagnosis with `code` recorded after `after` and returns its message,
    /// figures and sequence.
    private func diagnosis(_ code: DiagnosisCode, after: UInt64? = nil) async throws -> (message: String, figures: [JournalFigure], sequence: UInt64) {
        let journal = try XCTUnwrap(server?.journal)
        let found = await journal.waitForEvents(count: 1, after: after, timeout: .seconds(20)) { event in
            if case .diagnosis(code, _, _) = event.kind { return true }
            return false
        }
        guard let event = found.first, case .diagnosis(_, let message, let figures) = event.kind else {
            throw NoDiagnosis(code: code)
        }
        return (message, figures, event.sequence)
    }

    // MARK: The simulator

    func testDeliveredAlertsGoToTheSimulatorCommandWithThePayloadOnStandardInput() async throws {
        let command = try standIn()
        let ports = try await start { delivery in
            var simulator = MockAPNsConfiguration.SimulatorForwarding(defaultDevice: "booted")
            simulator.command = [command, "push", "{udid}", "{bundleId}", "-"]
            delivery.simulator = simulator
        }
        try push(ports, topic: "com.example.app.voip", pushType: "voip", body: #"{"aps":{},"call":1}"#)
        try push(ports, body: #"{"aps":{"alert":"first"}}"#)
        try push(ports, pushType: "background", body: #"{"aps":{"content-available":1}}"#)
        try await waitUntil("the stand-in to be called twice") { calls().count >= 2 }
        let recorded = calls()
        // The VoIP push was delivered but is not for the simulator; the two others went, in order.
        XCTAssertEqual(recorded.map(\.arguments), [["push", "booted", "com.example.app", "-"], ["push", "booted", "com.example.app", "-"]])
        XCTAssertEqual(recorded.map(\.input), [#"{"aps":{"alert":"first"}}"#, #"{"aps":{"content-available":1}}"#])
    }

    func testAStoredNotificationIsForwardedWhenItsDeviceComesBack() async throws {
        let command = try standIn()
        let ports = try await start { delivery in
            var simulator = MockAPNsConfiguration.SimulatorForwarding(devices: [token.uppercased(): "SIM-UDID-1"])
            simulator.command = [command, "{udid}", "{bundleId}"]
            delivery.simulator = simulator
        }
        let server = try XCTUnwrap(self.server)
        try await server.setDevice(token, online: false)
        try push(ports, body: #"{"aps":{"alert":"old"}}"#)
        try push(ports, body: #"{"aps":{"alert":"new"}}"#)
        _ = try await server.journal.waitForNotifications(count: 2, timeout: .seconds(10))
        try await server.setDevice(token, online: true)
        try await waitUntil("the stand-in to be called") { !calls().isEmpty }
        XCTAssertEqual(calls().map(\.arguments), [["SIM-UDID-1", "com.example.app"]])
        XCTAssertEqual(calls().map(\.input), [#"{"aps":{"alert":"new"}}"#], "only the newest was stored, so only it arrives")
    }

    func testAFailingCommandIsDiagnosed() async throws {
        let command = try standIn(then: "echo 'Invalid device: booted' >&2; exit 3")
        let ports = try await start { delivery in
            var simulator = MockAPNsConfiguration.SimulatorForwarding(defaultDevice: "booted")
            simulator.command = [command, "{udid}"]
            delivery.simulator = simulator
        }
        let answer = try push(ports, body: #"{"aps":{"alert":"x"}}"#)
        let (message, _, _) = try await diagnosis(.deliveryForwardFailed)
        XCTAssertTrue(message.contains("exited with status 3"), message)
        XCTAssertTrue(message.contains("Invalid device: booted"), message)
        XCTAssertTrue(message.contains(try XCTUnwrap(answer.header("apns-id"))), message)
        XCTAssertTrue(message.contains("The APNs answer was not affected"), message)
    }

    func testAMissingCommandIsDiagnosed() async throws {
        let ports = try await start { delivery in
            var simulator = MockAPNsConfiguration.SimulatorForwarding(defaultDevice: "booted")
            simulator.command = [folder + "/no-such-program", "{udid}"]
            delivery.simulator = simulator
        }
        try push(ports, body: #"{"aps":{"alert":"x"}}"#)
        let (message, _, _) = try await diagnosis(.deliveryForwardFailed)
        XCTAssertTrue(message.contains("no-such-program"), message)
    }

    func testAStuckCommandIsStoppedAtTheTimeoutAndTheQueueStaysBounded() async throws {
        let command = try standIn(then: "exec sleep 30")
        let ports = try await start { delivery in
            var simulator = MockAPNsConfiguration.SimulatorForwarding(defaultDevice: "booted")
            simulator.command = [command, "{udid}"]
            delivery.simulator = simulator
            delivery.forwardTimeoutSeconds = 0.5
            delivery.forwardQueueLimit = 1
        }
        // The first runs (and sticks), the second waits in the queue, the third finds it full.
        try push(ports, body: #"{"aps":{"alert":"1"}}"#)
        try await waitUntil("the first call to start") { calls().count == 1 }
        try push(ports, body: #"{"aps":{"alert":"2"}}"#)
        try push(ports, body: #"{"aps":{"alert":"3"}}"#)
        let (full, figures, fullAt) = try await diagnosis(.deliveryForwardQueueFull)
        XCTAssertTrue(full.contains("queue is full (1 waiting)"), full)
        XCTAssertEqual(figures, [JournalFigure("queued", 1)])
        let (stopped, _, _) = try await diagnosis(.deliveryForwardTimedOut)
        XCTAssertTrue(stopped.contains("did not finish within 500 ms and was stopped"), stopped)
        // Once the stuck one is stopped, the waiting one runs, and what was left out is counted.
        let (counted, leftOut, _) = try await diagnosis(.deliveryForwardQueueFull, after: fullAt)
        XCTAssertTrue(counted.contains("1 notification(s) were not forwarded to the simulator"), counted)
        XCTAssertEqual(leftOut, [JournalFigure("leftOut", 1)])
        try await waitUntil("the second call") { calls().count >= 2 }
        XCTAssertEqual(calls().map(\.input), [#"{"aps":{"alert":"1"}}"#, #"{"aps":{"alert":"2"}}"#])
    }

    func testASlowCommandThatFinishesIsReportedAsSlow() async throws {
        let command = try standIn(then: "sleep 0.4")
        let ports = try await start { delivery in
            var simulator = MockAPNsConfiguration.SimulatorForwarding(defaultDevice: "booted")
            simulator.command = [command, "{udid}"]
            delivery.simulator = simulator
            delivery.forwardSlowSeconds = 0.1
        }
        try push(ports, body: #"{"aps":{"alert":"x"}}"#)
        let (message, figures, _) = try await diagnosis(.deliveryForwardSlow)
        XCTAssertTrue(message.contains("more than the 100 ms expected"), message)
        XCTAssertGreaterThanOrEqual(figures.first?.value ?? 0, 400)
    }

    // MARK: The webhook

    func testDeliveredNotificationsArePostedAsJSON() async throws {
        let receiver = try await WebhookReceiver.start(answering: .ok)
        addTeardownBlock { await receiver.stop() }
        let ports = try await start { $0.webhookURL = receiver.url }
        let answer = try push(ports, pushType: "alert", body: #"{"aps":{"alert":"to the webhook"}}"#)
        try await waitUntil("the receiver to get the notification") { !receiver.received.all.isEmpty }
        let body = try XCTUnwrap(receiver.received.all.first)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        XCTAssertEqual(json["deviceToken"] as? String, token)
        XCTAssertEqual(json["bundleId"] as? String, "com.example.app")
        XCTAssertEqual(json["apnsId"] as? String, answer.header("apns-id"))
        XCTAssertEqual(json["uniqueId"] as? String, answer.header("apns-unique-id"))
        XCTAssertEqual(json["fromStorage"] as? Bool, false)
        XCTAssertEqual(((json["payload"] as? [String: Any])?["aps"] as? [String: Any])?["alert"] as? String, "to the webhook")
    }

    func testAFailingReceiverIsDiagnosed() async throws {
        let receiver = try await WebhookReceiver.start(answering: .status(503))
        addTeardownBlock { await receiver.stop() }
        let ports = try await start { $0.webhookURL = receiver.url }
        try push(ports, body: #"{"aps":{"alert":"x"}}"#)
        let (message, _, _) = try await diagnosis(.deliveryForwardFailed)
        XCTAssertTrue(message.contains("the receiver answered 503"), message)
        XCTAssertTrue(message.contains("POST \(receiver.url)"), message)
    }

    func testASilentReceiverIsCutOffAtTheTimeout() async throws {
        let receiver = try await WebhookReceiver.start(answering: .never)
        addTeardownBlock { await receiver.stop() }
        let ports = try await start { delivery in
            delivery.webhookURL = receiver.url
            delivery.forwardTimeoutSeconds = 0.3
        }
        try push(ports, body: #"{"aps":{"alert":"x"}}"#)
        let (message, _, _) = try await diagnosis(.deliveryForwardTimedOut)
        XCTAssertTrue(message.contains("did not finish within 300 ms"), message)
        XCTAssertEqual(receiver.received.all.count, 1, "the request reached the receiver, which never answered")
    }

    func testAReceiverThatIsNotThereIsDiagnosed() async throws {
        // A port that was free a moment ago: nothing listens there.
        let receiver = try await WebhookReceiver.start(answering: .ok)
        let url = receiver.url
        await receiver.stop()
        let ports = try await start { $0.webhookURL = url }
        try push(ports, body: #"{"aps":{"alert":"x"}}"#)
        let (message, _, _) = try await diagnosis(.deliveryForwardFailed)
        XCTAssertTrue(message.contains("could not connect to 127.0.0.1"), message)
    }
}

/// A diagnosis that never came.
private struct NoDiagnosis: Error, CustomStringConvertible {
    var code: DiagnosisCode
    var description: String { "no \(code.rawValue) diagnosis was recorded in time" }
}
