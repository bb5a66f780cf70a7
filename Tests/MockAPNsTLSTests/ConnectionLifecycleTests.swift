import Foundation
import MockAPNsTLS
import NIOCore
import NIOPosix
import XCTest

final class ConnectionLifecycleTests: TLSTestCase {
    func testClientCloseSendsCloseNotifyAndServerAnswers() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration())
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration())
        try await client.send(Array("ping".utf8))
        try await client.recorder.wait { $0.received.count >= 4 }

        try await client.channel.close()
        let serverSide = try await server.recorder.wait { $0.closeNotifyCount == 1 && $0.inactiveCount == 1 }
        XCTAssertTrue(serverSide.errors.isEmpty, "\(serverSide.errors)")
        try await server.stop()
    }

    func testServerCloseSendsCloseNotify() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration())
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration())
        // The probe on the server closes the channel when it reads "close".
        try await client.send(Array("close".utf8))
        let clientSide = try await client.recorder.wait { $0.closeNotifyCount == 1 && $0.inactiveCount == 1 }
        XCTAssertTrue(clientSide.errors.isEmpty, "\(clientSide.errors)")
        try await server.stop()
    }

    func testCloseNotifySeenByOpenSSLClient() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration())
        // -ign_eof keeps s_client reading after its input ends, until the server closes.
        let result = openSSLClient(port: server.port, ["-ign_eof", "-quiet"], input: "close")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertFalse(result.output.contains("unexpected eof"), result.output)
        try await server.stop()
    }

    func testLargePayloadsPassIntactBothWays() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration())
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration())
        var generator = SystemRandomNumberGenerator()
        let payload = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try await client.send(payload)

        let seen = try await client.recorder.wait(timeout: 30) { $0.received.count >= payload.count }
        XCTAssertEqual(seen.received.count, payload.count)
        XCTAssertTrue(seen.received == payload, "echoed bytes differ")
        XCTAssertEqual(server.recorder.snapshot.received.count, payload.count)
        try await client.channel.close()
        try await server.stop()
    }

    func testWritePromisesCompleteAfterHandshake() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration())
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration())
        let channel = client.channel
        // Several writes before the handshake completes, one flush: all promises succeed and
        // the bytes arrive in order.
        let futures = (0..<5).map { index in
            channel.write(channel.allocator.buffer(string: "\(index)"))
        }
        channel.flush()
        for future in futures {
            try await future.get()
        }
        let seen = try await client.recorder.wait { $0.received.count >= 5 }
        XCTAssertEqual(String(decoding: seen.received, as: UTF8.self), "01234")
        try await channel.close()
        try await server.stop()
    }

    func testKeyLogFileGetsSecretsForTLS13AndTLS12() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keylog-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = try serverConfiguration()
        configuration.keyLogFile = path
        let server = try await EchoServer.start(group: group, configuration: configuration)

        let modern = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration())
        try await modern.recorder.wait { !$0.completed.isEmpty }
        var legacyConfiguration = try clientConfiguration()
        legacyConfiguration.maximumVersion = .tlsv12
        let legacy = try await TestClient.connect(group: group, port: server.port, configuration: legacyConfiguration)
        try await legacy.recorder.wait { !$0.completed.isEmpty }
        try await server.recorder.wait { $0.completed.count == 2 }

        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let labels = Set(lines.compactMap { $0.split(separator: " ").first.map(String.init) })
        XCTAssertTrue(labels.isSuperset(of: [
            "CLIENT_HANDSHAKE_TRAFFIC_SECRET", "SERVER_HANDSHAKE_TRAFFIC_SECRET",
            "CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0", "CLIENT_RANDOM",
        ]), "\(labels)")
        // Each line: label, 32-byte client random in hex, secret in hex.
        for line in lines {
            let fields = line.split(separator: " ")
            XCTAssertEqual(fields.count, 3, String(line))
            XCTAssertEqual(fields.dropFirst().first?.count, 64, String(line))
        }
        try await modern.channel.close()
        try await legacy.channel.close()
        try await server.stop()
    }

    func testPlainHTTPInsteadOfClientHelloIsRefusedAndServerKeepsServing() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration())
        let raw = try await RawClient.connect(group: group, port: server.port)
        try await raw.send(Array("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        try await raw.recorder.wait { $0.inactiveCount == 1 }

        let serverSide = try await server.recorder.wait { !$0.failed.isEmpty && !$0.errors.isEmpty }
        let failure = try XCTUnwrap(serverSide.failed.first)
        XCTAssertNil(failure.clientHello)
        XCTAssertEqual(failure.reason, "peer sent plain text (\"GET / HTTP/1.1\") to a TLS port, not a TLS ClientHello")

        // The listener is unharmed.
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration())
        try await client.send(Array("still here".utf8))
        try await client.recorder.wait { $0.received.count >= 10 }
        try await client.channel.close()
        try await server.stop()
    }

    func testGarbageHandshakeRecordsCloseTheConnection() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration())
        var generator = SystemRandomNumberGenerator()
        let inputs: [[UInt8]] = [
            [0x16, 0x03, 0x01, 0x00, 0x06, 0x01, 0x00, 0x00, 0x02, 0x03, 0x03],  // truncated ClientHello
            [0x16, 0x03, 0x01, 0xff, 0xff] + Array(repeating: 0x41, count: 100),  // oversized record length
            (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) },
            [0x00],
        ]
        for (index, input) in inputs.enumerated() {
            let raw = try await RawClient.connect(group: group, port: server.port)
            try await raw.send(input)
            if input.count == 1 {
                // Too little to judge: the server waits; closing from our side must not crash it.
                try await raw.channel.close()
            } else {
                try await raw.recorder.wait { $0.inactiveCount == 1 }
            }
            try await server.recorder.wait { $0.failed.count == index + 1 }
        }
        XCTAssertTrue(server.recorder.snapshot.completed.isEmpty)
    }

    func testPortProbeThatSendsNothingIsToldApart() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration())
        let raw = try await RawClient.connect(group: group, port: server.port)
        try await raw.channel.close()
        let seen = try await server.recorder.wait { !$0.failed.isEmpty && $0.inactiveCount == 1 }
        XCTAssertEqual(seen.failed.first?.reason, "peer closed the connection without starting a TLS handshake")
        XCTAssertNil(seen.failed.first?.alertSent)
        try await server.stop()
    }
}

/// A plain TCP client, for sending bytes that are not TLS.
struct RawClient {
    let channel: any Channel
    let recorder: Recorder

    static func connect(group: any EventLoopGroup, port: Int) async throws -> RawClient {
        let recorder = Recorder()
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Probe(recorder: recorder, echo: false))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return RawClient(channel: channel, recorder: recorder)
    }

    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
    }
}
