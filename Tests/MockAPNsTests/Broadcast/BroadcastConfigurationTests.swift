import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest
import MockAPNsBroadcast

/// The `broadcast` object of a configuration file, and `mockapns journal`'s lines for
/// broadcast events.
final class BroadcastConfigurationTests: XCTestCase {
    func testBroadcastKeysAreRead() throws {
        let configuration = try MockAPNsConfiguration.parse(json: """
            {"environment": "production",
             "broadcast": {"managePort": 0, "channelLimit": 3, "maximumChannelIdLength": 32, "channelIdBytes": 8,
                           "storagePolicyStrings": false, "pushTypeCaseSensitive": true,
                           "badStoragePolicyReason": "InvalidPushType", "bundleNotCoveredReason": "TopicDisallowed",
                           "disabledBundleIds": ["com.example.off"], "allowedPriorities": [1, 5, 10], "payloadLimit": 4096,
                           "channels": [{"id": "c29tZUNoYW5uZWw=", "bundleId": "com.example.app", "messageStoragePolicy": 0},
                                        {"id": "QUJD", "bundleId": "com.example.app", "environment": "sandbox"}]}}
            """)
        let broadcast = configuration.broadcast
        XCTAssertEqual(broadcast.managePort, 0)
        XCTAssertEqual(broadcast.options, BroadcastOptions(
            channelLimit: 3, maximumChannelIDLength: 32, channelIDByteCount: 8, acceptsStoragePolicyStrings: false,
            pushTypeCaseSensitive: true, badStoragePolicyReason: .invalidPushType, bundleNotCoveredReason: .topicDisallowed,
            disabledBundleIDs: ["com.example.off"], allowedPriorities: [.powerFirst, .powerAware, .immediate], payloadLimit: 4096
        ))
        XCTAssertEqual(broadcast.channels, [
            BroadcastChannel(id: "c29tZUNoYW5uZWw=", bundleID: "com.example.app", environment: .production, storagePolicy: .noMessageStored),
            BroadcastChannel(id: "QUJD", bundleID: "com.example.app", environment: .sandbox, storagePolicy: .mostRecentMessageStored),
        ])
        XCTAssertNil(MockAPNsConfiguration().broadcast.managePort, "embedded servers run no management listener unless asked")
    }

    func testMistakesAreNamedWithTheirPath() {
        let cases: [(json: String, path: String)] = [
            (#"{"broadcast": {"managePort": 70000}}"#, "$.broadcast.managePort"),
            (#"{"broadcast": {"channelLimt": 3}}"#, "$.broadcast.channelLimt"),
            (#"{"broadcast": {"allowedPriorities": [7]}}"#, "$.broadcast.allowedPriorities[0]"),
            (#"{"broadcast": {"badStoragePolicyReason": "Nope"}}"#, "$.broadcast.badStoragePolicyReason"),
            (#"{"broadcast": {"channels": [{"id": "not base64", "bundleId": "a"}]}}"#, "$.broadcast.channels[0].id"),
            (#"{"broadcast": {"channels": [{"id": "QUJD"}]}}"#, "$.broadcast.channels[0]"),
            (#"{"broadcast": {"channels": [{"id": "QUJD", "bundleId": "a", "policy": 1}]}}"#, "$.broadcast.channels[0].policy"),
        ]
        for item in cases {
            XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: item.json), item.json) { error in
                XCTAssertTrue("\(error)".contains(item.path), "\(item.json): \(error)")
            }
        }
    }

    func testJournalCommandPrintsBroadcastsAndChannelOperations() async throws {
        let file = Fixtures.temporaryPath("broadcast-journal.jsonl")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (server, ports) = try await TestServer.start {
            $0.broadcast.managePort = 0
            $0.journalFile = file
        }
        let created = try CurlClient(port: try XCTUnwrap(ports.channelManagement)).send(
            path: "/1/apps/com.example.app/channels", body: #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#)
        let channel = try XCTUnwrap(created.header("apns-channel-id"))
        _ = try CurlClient(port: ports.http2).send(
            path: "/4/broadcasts/apps/com.example.app",
            headers: [("apns-channel-id", channel), ("apns-push-type", "liveactivity")], body: #"{"aps":{"event":"update"}}"#)
        try await server.shutdown()
        let result = try ProcessRunner.run(Fixtures.executable, ["journal", "--file", file, "--type", "channelOperation,broadcast"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, result.stdout)
        XCTAssertTrue(lines.first?.hasSuffix("channel create com.example.app channel=\(channel) => 201 accepted") ?? false, result.stdout)
        XCTAssertTrue(lines.last?.contains("broadcast com.example.app channel=\(channel) => 200 accepted apns-id=") ?? false, result.stdout)
    }
}

/// `mockapns serve --broadcast-manage-port`.
final class BroadcastServeCommandTests: XCTestCase {
    func testServeOpensTheManagementListenerAndReportsItsPort() throws {
        let portsFile = Fixtures.temporaryPath("broadcast-ports.json")
        defer { try? FileManager.default.removeItem(atPath: portsFile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Fixtures.executable)
        process.arguments = [
            "serve", "--http2-port", "0", "--web-push-port", "0", "--gateway-port", "0", "--feedback-port", "0", "--control-port", "0",
            "--broadcast-manage-port", "0", "--ports-file", portsFile, "--cert-dir", Fixtures.certificateDirectory,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let ports = try PortsFile.wait(portsFile, for: "channelManagement")
        let manage = try XCTUnwrap(ports["channelManagement"], "ports file: \(ports)")
        let response = try CurlClient(port: manage).send(method: "GET", path: "/1/apps/com.example.app/all-channels", body: nil)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, #"{"channels":[]}"#)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(printed.contains("channelManagement=127.0.0.1:\(manage)"), printed)
    }

    func testOutOfRangeManagePortIsRefused() throws {
        let result = try ProcessRunner.run(Fixtures.executable, ["serve", "--broadcast-manage-port", "70000"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("--broadcast-manage-port must be 0-65535"), result.stderr)
    }
}
