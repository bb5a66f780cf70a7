import MockAPNsWire
import MockAPNsHTTP2
import MockAPNsTestSupport
import NIOCore
import NIOEmbedded
import XCTest
import CMemoryPool

/// Each nghttp2 session allocates from its own pool: once a connection has reached its
/// steady state, the blocks of finished streams serve the next ones, and nghttp2 stops
/// calling the system allocator.
final class MemoryPoolTests: XCTestCase {
    private final class Answering: NGHTTP2ServerDelegate {
        var answered = 0
        func http2Handler(_ handler: NGHTTP2ServerHandler, didReceive request: HTTP2Request) {
            answered += 1
            handler.respond(
                streamID: request.streamID, status: 400,
                headers: [HTTPHeader(name: "apns-id", value: "0A3F2D58-6C1E-4B9A-8F00-\(String(request.streamID, radix: 16).uppercased())")],
                body: ByteBuffer(string: #"{"reason":"BadDeviceToken"}"#)
            )
        }
    }

    /// `count` requests on the streams from `first` on: HEADERS, then a DATA frame ending the stream.
    private func requests(from first: UInt32, count: Int) -> [UInt8] {
        (0..<UInt32(count)).flatMap { index -> [UInt8] in
            let stream = first + 2 * index
            return ClientBytes.headers(streamID: stream, endStream: false)
                + ClientBytes.data(streamID: stream, Array(#"{"aps":{"alert":"hello"}}"#.utf8), endStream: true)
        }
    }

    func testAConnectionStopsAllocatingOnceItReachesItsSteadyState() throws {
        try assertSteadyState(inFlight: 8, maxConcurrentStreams: 10)
    }

    /// A client such as h2load `-m100` keeps 100 requests in flight: the blocks of 100
    /// streams are of uneven sizes (most are 256-byte blocks), and the pool's budget is shared
    /// by its classes, so they are all kept, and still within the pool's bound in bytes.
    func testAHundredStreamsInFlightAreServedFromKeptBlocks() throws {
        try assertSteadyState(inFlight: 100, maxConcurrentStreams: 100)
    }

    /// Serves batches of `inFlight` requests, answered together; after a warm-up, more
    /// batches take nothing more from the system allocator.
    private func assertSteadyState(inFlight: Int, maxConcurrentStreams: UInt32, file: StaticString = #filePath, line: UInt = #line) throws {
        let delegate = Answering()
        // nghttp2 keeps up to MAX_CONCURRENT_STREAMS closed streams (for priorities), and the
        // HPACK table fills with each answer's new apns-id until it holds 4,096 bytes: both
        // are full after the warm-up (with 100 streams in flight, nghttp2 grows its tables for some 50 batches).
        let handler = NGHTTP2ServerHandler(configuration: .init(maxConcurrentStreams: maxConcurrentStreams), delegate: delegate)
        let channel = EmbeddedChannel(handler: handler)
        defer { _ = try? channel.finish() }
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        // The connection's flow-control window opened wide: 4,000 error bodies exceed the 64 KiB
        // a client allows by default.
        let windowUpdate = ClientBytes.frame(type: 0x8, streamID: 0, payload: [0x7F, 0xFF, 0x00, 0x00])
        try channel.writeInbound(ByteBuffer(bytes: ClientBytes.opening() + windowUpdate))
        var nextStream: UInt32 = 1
        func serve(batches: Int) throws {
            for _ in 0..<batches {
                try channel.writeInbound(ByteBuffer(bytes: requests(from: nextStream, count: inFlight)))
                nextStream += 2 * UInt32(inFlight)
                while try channel.readOutbound(as: ByteBuffer.self) != nil {}
            }
        }

        try serve(batches: 60)
        let warm = try XCTUnwrap(handler.memoryPoolUse, file: file, line: line)
        XCTAssertGreaterThan(warm.systemAllocations, 0, "the session allocates through its pool", file: file, line: line)
        try serve(batches: 25)
        XCTAssertEqual(delegate.answered, 85 * inFlight, file: file, line: line)
        let after = try XCTUnwrap(handler.memoryPoolUse, file: file, line: line)
        XCTAssertEqual(after.systemAllocations, warm.systemAllocations,
                       "\(25 * inFlight) more requests are served from the blocks of the first \(60 * inFlight)", file: file, line: line)
        XCTAssertLessThanOrEqual(after.outstanding, warm.outstanding, "finished streams give their blocks back: what the session holds does not grow",
                                 file: file, line: line)
        XCTAssertLessThanOrEqual(after.keptBytes, Int(mockapns_memory_pool_keep_limit()), "what the pool keeps is bounded in bytes", file: file, line: line)
    }

    /// The allocator's own contract, as nghttp2 relies on it.
    func testThePoolKeepsTheAllocatorContract() throws {
        let pool = try XCTUnwrap(mockapns_memory_pool_create())
        defer { mockapns_memory_pool_destroy(pool) }
        let user = UnsafeMutableRawPointer(pool)

        // A freed block is handed out again for a request of its size class.
        let first = try XCTUnwrap(mockapns_memory_pool_malloc(100, user))
        XCTAssertEqual(Int(bitPattern: first) % 16, 0, "16-byte aligned")
        mockapns_memory_pool_free(first, user)
        let again = try XCTUnwrap(mockapns_memory_pool_malloc(120, user))
        XCTAssertEqual(again, first)
        XCTAssertEqual(mockapns_memory_pool_system_allocations(pool), 1)

        // calloc zeroes a recycled block, and refuses a size that overflows.
        again.storeBytes(of: UInt64.max, as: UInt64.self)
        mockapns_memory_pool_free(again, user)
        let zeroed = try XCTUnwrap(mockapns_memory_pool_calloc(16, 8, user))
        XCTAssertEqual(zeroed, first, "the 128-byte class's block again")
        XCTAssertEqual(zeroed.load(as: UInt64.self), 0)
        XCTAssertNil(mockapns_memory_pool_calloc(Int.max, 4, user))

        // realloc keeps the bytes, in place within the class, moved beyond it, and for blocks
        // larger than the largest class.
        for (index, byte) in (0..<32).enumerated() { zeroed.storeBytes(of: UInt8(byte), toByteOffset: index, as: UInt8.self) }
        XCTAssertEqual(mockapns_memory_pool_realloc(zeroed, 128, user), zeroed)
        let moved = try XCTUnwrap(mockapns_memory_pool_realloc(zeroed, 1_000, user))
        let large = try XCTUnwrap(mockapns_memory_pool_realloc(moved, 100_000, user))
        XCTAssertEqual((0..<32).map { large.load(fromByteOffset: $0, as: UInt8.self) }, (0..<32).map { UInt8($0) })
        let larger = try XCTUnwrap(mockapns_memory_pool_realloc(large, 200_000, user))
        XCTAssertEqual(larger.load(fromByteOffset: 31, as: UInt8.self), 31)
        XCTAssertEqual(mockapns_memory_pool_outstanding(pool), 1)
        mockapns_memory_pool_free(larger, user)
        XCTAssertEqual(mockapns_memory_pool_outstanding(pool), 0)
        XCTAssertNil(mockapns_memory_pool_malloc(Int.max, user), "a size that cannot carry the block header")
    }
}
