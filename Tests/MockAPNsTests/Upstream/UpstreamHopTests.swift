import Logging
import MockAPNsHTTP2
import MockAPNsUpstream
import MockAPNsWire
import NIOCore
import NIOPosix
import XCTest

/// What a relayed request sends upstream: the list the client sends is made once per hop, and
/// a request that repeats the connection's last one (the same fields, known from its head)
/// takes that hop's list whole.
final class UpstreamHopTests: XCTestCase {
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    override func tearDown() async throws {
        try await group.shutdownGracefully()
    }

    private func route() throws -> UpstreamRelayService.Route {
        // No connection opens before a request is sent, and none is sent here.
        let client = try UpstreamClient(
            endpoint: UpstreamEndpoint(host: "127.0.0.1", port: 1), group: group, logger: Logger(label: "test")
        )
        return UpstreamRelayService.Route(client: client, origin: "https://127.0.0.1:1")
    }

    private static func fields(token: String) -> [HTTPHeader] {
        [
            HTTPHeader(name: ":method", value: "POST"), HTTPHeader(name: ":scheme", value: "https"),
            HTTPHeader(name: ":path", value: "/3/device/\(token)"), HTTPHeader(name: ":authority", value: "localhost"),
            HTTPHeader(name: "apns-topic", value: "com.example.app"), HTTPHeader(name: "authorization", value: "bearer eyJ.x.y"),
            HTTPHeader(name: "connection", value: "keep-alive"), HTTPHeader(name: "content-length", value: "2"),
        ]
    }

    /// The next request's head as a connection reads it: on the previous head's storage.
    private static func head(after previous: RequestHead, _ fields: [HTTPHeader]) -> RequestHead {
        var head = previous.recycled()
        for field in fields { head.append(field) }
        return head
    }

    private static func storage(_ list: [HTTPHeader]) -> UnsafePointer<HTTPHeader>? {
        list.withUnsafeBufferPointer { $0.baseAddress }
    }

    func testTheClientsListHasItsPseudoHeadersThenTheFieldsHTTP2Allows() throws {
        let route = try route()
        let request = HTTP2Request(streamID: 1, head: RequestHead(Self.fields(token: "aa")), body: [0x7B, 0x7D], bodyLength: 2)
        let hop = try XCTUnwrap(UpstreamHop(request, route: route, comparesAnswers: true, affinity: 1))
        XCTAssertEqual(hop.request.headers.map(\.name), [
            ":method", ":scheme", ":authority", ":path", "apns-topic", "authorization", "content-length",
        ])
        XCTAssertEqual(hop.request.headers[2].value, "127.0.0.1:1", "the upstream's authority, not the provider's")
        XCTAssertEqual(hop.request.headers[3].value, "/3/device/aa")
        XCTAssertEqual(hop.request.body, [0x7B, 0x7D])
        XCTAssertEqual(hop.headers, Self.fields(token: "aa"), "the fields as they came")
    }

    func testARequestRepeatingTheLastOnesFieldsSendsThatHopsListWithItsOwnBody() throws {
        let route = try route()
        let first = RequestHead(Self.fields(token: "aa"))
        let hop = try XCTUnwrap(UpstreamHop(
            HTTP2Request(streamID: 1, head: first, body: [1, 2], bodyLength: 2), route: route, comparesAnswers: true, affinity: 1
        ))
        let again = Self.head(after: first, Self.fields(token: "aa"))
        let next = try XCTUnwrap(UpstreamHop(
            HTTP2Request(streamID: 3, head: again, body: [3, 4], bodyLength: 2), after: hop, route: route, comparesAnswers: true,
            affinity: 1
        ))
        XCTAssertEqual(Self.storage(next.request.headers), Self.storage(hop.request.headers), "the same list, not a copy")
        XCTAssertEqual(Self.storage(next.headers), Self.storage(hop.headers))
        XCTAssertEqual(next.request.body, [3, 4])
        XCTAssertEqual(next.body, [3, 4])
    }

    func testARequestWithOtherFieldsGetsAListOfItsOwn() throws {
        let route = try route()
        let first = RequestHead(Self.fields(token: "aa"))
        let hop = try XCTUnwrap(UpstreamHop(
            HTTP2Request(streamID: 1, head: first, body: [], bodyLength: 0), route: route, comparesAnswers: true, affinity: 1
        ))
        let other = Self.head(after: first, Self.fields(token: "bb"))
        let next = try XCTUnwrap(UpstreamHop(
            HTTP2Request(streamID: 3, head: other, body: [], bodyLength: 0), after: hop, route: route, comparesAnswers: true,
            affinity: 1
        ))
        XCTAssertNotEqual(Self.storage(next.request.headers), Self.storage(hop.request.headers))
        XCTAssertEqual(next.request.headers[3], HTTPHeader(name: ":path", value: "/3/device/bb"))
        XCTAssertEqual(next.headers, Self.fields(token: "bb"))

        // Equal fields on storage of their own are read one by one: the list is equal, and new.
        let copied = RequestHead(Self.fields(token: "bb"))
        let third = try XCTUnwrap(UpstreamHop(
            HTTP2Request(streamID: 5, head: copied, body: [], bodyLength: 0), after: next, route: route, comparesAnswers: true,
            affinity: 1
        ))
        XCTAssertEqual(third.request.headers, next.request.headers)
    }

    func testAHopForAnotherUpstreamMakesItsOwnList() throws {
        let first = RequestHead(Self.fields(token: "aa"))
        let hop = try XCTUnwrap(UpstreamHop(
            HTTP2Request(streamID: 1, head: first, body: [], bodyLength: 0), route: route(), comparesAnswers: true, affinity: 1
        ))
        let again = Self.head(after: first, Self.fields(token: "aa"))
        let elsewhere = try XCTUnwrap(UpstreamHop(
            HTTP2Request(streamID: 3, head: again, body: [], bodyLength: 0), after: hop, route: route(), comparesAnswers: true,
            affinity: 1
        ))
        XCTAssertNotEqual(Self.storage(elsewhere.request.headers), Self.storage(hop.request.headers))
        XCTAssertEqual(elsewhere.request.headers, hop.request.headers)
    }

    func testABodyLongerThanTheServerKeepsIsNotRelayed() throws {
        let request = HTTP2Request(streamID: 1, head: RequestHead(Self.fields(token: "aa")), body: [1], bodyLength: 5000)
        XCTAssertNil(UpstreamHop(request, route: try route(), comparesAnswers: true, affinity: 1))
    }
}
