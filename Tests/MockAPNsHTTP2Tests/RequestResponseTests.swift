import MockAPNsWire
import MockAPNsTestSupport
import MockAPNsHTTP2
import NIOCore
import XCTest

/// Requests in, responses out, against real clients (curl, nghttp, h2load).
final class RequestResponseTests: XCTestCase {
    private static let curl = "curl"
    private static let nghttp = "nghttp"
    private static let h2load = "h2load"

    func testImmediateResponseCarriesStatusHeadersAndBody() throws {
        let server = try TestServer { handler, request, _ in
            var body = ByteBuffer(string: #"{"reason":"BadDeviceToken"}"#)
            body.writeString("")
            handler.respond(
                streamID: request.streamID, status: 400,
                headers: [
                    HTTPHeader(name: "content-type", value: "application/json"),
                    HTTPHeader(name: "apns-id", value: "EC1BF194-B3B2-424A-89A9-5A918A6E6B5E"),
                ],
                body: body
            )
        }
        defer { server.stop() }

        let result = try ProcessRunner.runIfInstalled(Self.curl, [
            "-s", "-i", "--http2-prior-knowledge", "--max-time", "10",
            "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert",
            "--data-binary", #"{"aps":{"alert":"hi"}}"#,
            "http://127.0.0.1:\(server.port)/3/device/abcdef",
        ])

        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("HTTP/2 400"), result.stdout)
        XCTAssertTrue(result.stdout.contains("content-type: application/json"), result.stdout)
        XCTAssertTrue(result.stdout.contains("apns-id: EC1BF194-B3B2-424A-89A9-5A918A6E6B5E"), result.stdout)
        XCTAssertTrue(result.stdout.hasSuffix(#"{"reason":"BadDeviceToken"}"#), result.stdout)

        let request = try XCTUnwrap(server.log.requests.first)
        XCTAssertEqual(request.streamID, 1)
        XCTAssertEqual(request.head[.method], "POST")
        XCTAssertEqual(request.head[.path], "/3/device/abcdef")
        XCTAssertEqual(request.head[.apnsTopic], "com.example.app")
        XCTAssertEqual(request.head[.apnsPushType], "alert")
        XCTAssertEqual(String(decoding: request.body, as: UTF8.self), #"{"aps":{"alert":"hi"}}"#)
        XCTAssertEqual(request.bodyLength, 22)
        // Pseudo-headers arrive first, in the order the client sent them.
        XCTAssertEqual(request.head.fields.prefix(4).map(\.name).filter { $0.hasPrefix(":") }.count, 4)
    }

    func testRequestWithoutBodyIsDeliveredOnHeadersEndStream() throws {
        let server = try TestServer()
        defer { server.stop() }

        let result = try ProcessRunner.runIfInstalled(Self.curl, [
            "-s", "-i", "--http2-prior-knowledge", "--max-time", "10",
            "http://127.0.0.1:\(server.port)/nothing",
        ])

        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("HTTP/2 200"), result.stdout)
        XCTAssertTrue(result.stdout.contains("apns-id: A-1"), result.stdout)
        let request = try XCTUnwrap(server.log.requests.first)
        XCTAssertEqual(request.head[.method], "GET")
        XCTAssertEqual(request.bodyLength, 0)
        XCTAssertEqual(request.body.count, 0)
    }

    func testDelayedResponseIsFlushedWithoutAnyRead() throws {
        let server = try TestServer { handler, request, channel in
            let handler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
            let streamID = request.streamID
            channel.eventLoop.scheduleTask(in: .milliseconds(50)) {
                handler.value.respond(
                    streamID: streamID, status: 200, headers: [HTTPHeader(name: "apns-id", value: "LATE")],
                    body: ByteBuffer(string: "late")
                )
            }
        }
        defer { server.stop() }

        let started = Date()
        let result = try ProcessRunner.runIfInstalled(Self.curl, [
            "-s", "-i", "--http2-prior-knowledge", "--max-time", "10", "-d", "{}",
            "http://127.0.0.1:\(server.port)/3/device/aa",
        ])

        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.05)
        XCTAssertTrue(result.stdout.hasPrefix("HTTP/2 200"), result.stdout)
        XCTAssertTrue(result.stdout.contains("apns-id: LATE"), result.stdout)
        XCTAssertTrue(result.stdout.hasSuffix("late"), result.stdout)
    }

    func testLargeBodyArrivesIntactAcrossManyDataFrames() throws {
        let server = try TestServer(configuration: .init(maxBodyBytesStored: 1 << 20, recordsFrames: true)) { handler, request, _ in
            // Echo the body back: it crosses the wire twice in many DATA frames.
            handler.respond(streamID: request.streamID, status: 200, headers: [], body: ByteBuffer(bytes: request.body))
        }
        defer { server.stop() }
        let payload = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 251) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mockapns-body-\(UUID().uuidString)")
        try Data(payload).write(to: file)
        let echoed = FileManager.default.temporaryDirectory.appendingPathComponent("mockapns-echo-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: echoed)
        }

        let result = try ProcessRunner.runIfInstalled(Self.curl, [
            "-s", "--http2-prior-knowledge", "--max-time", "10", "--data-binary", "@\(file.path)",
            "-o", echoed.path, "http://127.0.0.1:\(server.port)/3/device/aa",
        ])

        XCTAssertEqual(result.status, 0, result.stderr)
        let request = try XCTUnwrap(server.log.requests.first)
        XCTAssertEqual(request.bodyLength, payload.count)
        XCTAssertTrue(request.body == payload, "stored body differs")
        XCTAssertGreaterThan(server.log.frames.filter { $0.direction == .inbound && $0.type == .data }.count, 6)
        XCTAssertTrue(try Data(contentsOf: echoed) == Data(payload), "echoed body differs")
    }

    func testResponseLargerThanTheClientWindowWaitsForWindowUpdates() throws {
        // nghttp's windows are 65,535 bytes: this body needs several WINDOW_UPDATEs, each
        // of which arrives as a read and lets the handler send the next DATA frames.
        let body = String((0..<300_000).map { Character(Unicode.Scalar(UInt8(0x61 + $0 % 26))) })
        let server = try TestServer(configuration: .init(recordsFrames: false)) { handler, request, _ in
            handler.respond(streamID: request.streamID, status: 200, headers: [], body: ByteBuffer(string: body))
        }
        defer { server.stop() }

        let result = try ProcessRunner.runIfInstalled(Self.nghttp, ["http://127.0.0.1:\(server.port)/big"])

        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.count, body.count)
        XCTAssertTrue(result.stdout == body, "the body arrived altered")
        waitFor { !server.log.closedStreams.isEmpty }
        XCTAssertEqual(server.log.closedStreams.first?.errorCode, HTTP2ErrorCode.noError)
    }

    func testDelegateClosingTheChannelFromACallbackIsSafe() throws {
        let server = try TestServer { _, _, channel in
            // Closing from inside nghttp2's callback: the session must outlive the callback.
            channel.close(promise: nil)
        }
        defer { server.stop() }

        let closed = try RawHTTP2Client.exchange(
            port: server.port, send: ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: true),
            group: server.group
        )
        XCTAssertTrue(closed.closedByServer)

        let result = try ProcessRunner.runIfInstalled(Self.curl, [
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "--http2-prior-knowledge", "--max-time", "2",
            "http://127.0.0.1:\(server.port)/close",
        ])
        XCTAssertNotEqual(result.status, 0, "the connection was closed without an answer")
    }

    func testBodyBeyondTheStoreLimitIsCountedButNotKept() throws {
        let server = try TestServer(configuration: .init(maxBodyBytesStored: 1000))
        defer { server.stop() }

        let result = try ProcessRunner.runIfInstalled(Self.curl, [
            "-s", "--http2-prior-knowledge", "--max-time", "10",
            "--data-binary", String(repeating: "x", count: 50_000),
            "http://127.0.0.1:\(server.port)/3/device/aa",
        ])

        XCTAssertEqual(result.status, 0, result.stderr)
        let request = try XCTUnwrap(server.log.requests.first)
        XCTAssertEqual(request.bodyLength, 50_000)
        XCTAssertEqual(request.body.count, 1000)
        XCTAssertTrue(request.isBodyTruncated)
    }

    func testServerAnnouncesApplesSettings() throws {
        let server = try TestServer(configuration: .init(maxConcurrentStreams: 500))
        defer { server.stop() }

        let result = try ProcessRunner.runIfInstalled(Self.nghttp, ["-v", "http://127.0.0.1:\(server.port)/"])

        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let settings = try XCTUnwrap(Self.block(after: "recv SETTINGS frame <length=30", in: result.stdout))
        XCTAssertTrue(settings.contains("[SETTINGS_HEADER_TABLE_SIZE(0x01):4096]"), settings)
        XCTAssertTrue(settings.contains("[SETTINGS_MAX_CONCURRENT_STREAMS(0x03):500]"), settings)
        XCTAssertTrue(settings.contains("[SETTINGS_INITIAL_WINDOW_SIZE(0x04):65535]"), settings)
        XCTAssertTrue(settings.contains("[SETTINGS_MAX_FRAME_SIZE(0x05):16384]"), settings)
        XCTAssertTrue(settings.contains("[SETTINGS_MAX_HEADER_LIST_SIZE(0x06):8000]"), settings)
        XCTAssertFalse(result.stdout.contains("SETTINGS_ENABLE_PUSH"), result.stdout)
    }

    func testRaisingTheStreamLimitSendsNewSettings() throws {
        let server = try TestServer(configuration: .init(maxConcurrentStreams: 1)) { handler, request, _ in
            handler.setMaxConcurrentStreams(1000)
            handler.respond(streamID: request.streamID, status: 200, headers: [], body: nil)
        }
        defer { server.stop() }

        let result = try ProcessRunner.runIfInstalled(Self.nghttp, ["-v", "http://127.0.0.1:\(server.port)/"])

        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("[SETTINGS_MAX_CONCURRENT_STREAMS(0x03):1]"), result.stdout)
        let update = try XCTUnwrap(Self.block(after: "recv SETTINGS frame <length=6", in: result.stdout))
        XCTAssertTrue(update.contains("[SETTINGS_MAX_CONCURRENT_STREAMS(0x03):1000]"), update)
    }

    func testClientsFollowALimitRaisedFromOne() throws {
        // Apple's token connections: one stream until the first valid token, then many.
        let server = try TestServer(configuration: .init(maxConcurrentStreams: 1, recordsFrames: false)) {
            handler, request, _ in
            handler.setMaxConcurrentStreams(100)
            handler.respond(streamID: request.streamID, status: 200, headers: [], body: nil)
        }
        defer { server.stop() }

        let result = try ProcessRunner.runIfInstalled(
            Self.h2load, ["-n", "500", "-c", "1", "-m", "50", "http://127.0.0.1:\(server.port)/3/device/aa"],
            timeout: 60
        )

        XCTAssertTrue(result.stdout.contains("500 succeeded, 0 failed, 0 errored"), result.stdout)
        XCTAssertTrue(server.log.errors.isEmpty, "\(server.log.errors)")
    }

    func testResetStreamReachesTheClient() throws {
        let server = try TestServer { handler, request, _ in
            handler.resetStream(streamID: request.streamID, errorCode: HTTP2ErrorCode.cancel)
        }
        defer { server.stop() }

        let result = try ProcessRunner.runIfInstalled(Self.nghttp, ["-v", "http://127.0.0.1:\(server.port)/"])

        let reset = try XCTUnwrap(Self.block(after: "recv RST_STREAM frame", in: result.stdout), result.stdout)
        XCTAssertTrue(reset.contains("stream_id=1"), reset)
        XCTAssertTrue(reset.contains("error_code=CANCEL(0x08)"), reset)
    }

    func testGracefulShutdownLetsInFlightStreamsFinish() throws {
        let server = try TestServer(configuration: HTTP2ServerConfiguration(recordsFrames: true).withTestGoAwayDebugData) { handler, request, channel in
            // The first request starts the shutdown; every answer comes 100 ms later, so
            // all streams are still open when the GOAWAY goes out.
            if request.head[.path] == "/first" {
                handler.gracefulShutdown()
            }
            let handler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
            let streamID = request.streamID
            channel.eventLoop.scheduleTask(in: .milliseconds(100)) {
                handler.value.respond(streamID: streamID, status: 200, headers: [], body: ByteBuffer(string: "done"))
            }
        }
        defer { server.stop() }

        let base = "http://127.0.0.1:\(server.port)"
        let result = try ProcessRunner.runIfInstalled(Self.nghttp, ["-v", "\(base)/first", "\(base)/second", "\(base)/third"])

        let goaway = try XCTUnwrap(Self.block(after: "recv GOAWAY frame", in: result.stdout), result.stdout)
        XCTAssertTrue(goaway.contains("error_code=NO_ERROR(0x00)"), goaway)
        XCTAssertTrue(goaway.contains(#"opaque_data(21)=[{"reason":"Shutdown"}]"#), goaway)
        XCTAssertEqual(Self.count(of: ":status: 200", in: result.stdout), 3, result.stdout)
        XCTAssertEqual(server.log.requests.count, 3)
    }

    func testGracefulShutdownThroughThePipeline() throws {
        let server = try TestServer(configuration: HTTP2ServerConfiguration(recordsFrames: true).withTestGoAwayDebugData) { handler, request, channel in
            // The server module has no handle on the handler: it sends an event instead,
            // inbound for the first request and outbound for the second. The answer comes a
            // little later, so the client is still listening when the GOAWAY arrives.
            let event = HTTP2GracefulShutdownEvent()
            if request.head[.path] == "/first" {
                channel.pipeline.fireUserInboundEventTriggered(event)
            } else {
                channel.triggerUserOutboundEvent(event, promise: nil)
            }
            let handler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
            let streamID = request.streamID
            channel.eventLoop.scheduleTask(in: .milliseconds(20)) {
                handler.value.respond(streamID: streamID, status: 200, headers: [], body: nil)
            }
        }
        defer { server.stop() }

        for path in ["/first", "/second"] {
            let result = try ProcessRunner.runIfInstalled(Self.nghttp, ["-v", "http://127.0.0.1:\(server.port)\(path)"])

            let goaway = try XCTUnwrap(Self.block(after: "recv GOAWAY frame", in: result.stdout), path + result.stdout)
            XCTAssertTrue(goaway.contains(#"opaque_data(21)=[{"reason":"Shutdown"}]"#), goaway)
            XCTAssertEqual(Self.count(of: ":status: 200", in: result.stdout), 1, result.stdout)
        }
    }

    func testManyConcurrentStreamsAllSucceed() throws {
        let server = try TestServer(configuration: .init(recordsFrames: false))
        defer { server.stop() }

        let result = try ProcessRunner.runIfInstalled(
            Self.h2load, ["-n", "1000", "-c", "2", "-m", "50", "http://127.0.0.1:\(server.port)/3/device/aa"],
            timeout: 60
        )

        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(
            result.stdout.contains("requests: 1000 total, 1000 started, 1000 done, 1000 succeeded, 0 failed, 0 errored"),
            result.stdout
        )
        XCTAssertTrue(result.stdout.contains("status codes: 1000 2xx"), result.stdout)
        XCTAssertEqual(server.log.requests.count, 1000)
    }

    // MARK: - Helpers

    /// The line starting with `marker` and the indented lines nghttp prints under it.
    static func block(after marker: String, in output: String) -> String? {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.contains(marker) }) else { return nil }
        var block = [String(lines[start])]
        for line in lines[(start + 1)...] {
            guard line.hasPrefix("          ") else { break }
            block.append(String(line))
        }
        return block.joined(separator: "\n")
    }

    static func count(of needle: String, in haystack: String) -> Int {
        haystack.components(separatedBy: needle).count - 1
    }
}
