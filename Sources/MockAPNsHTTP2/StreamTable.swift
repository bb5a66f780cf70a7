import MockAPNsWire
import NIOCore

/// What the server keeps for one client stream between its first HEADERS and its close:
/// the request as it is assembled, then the response body waiting to be framed.
struct StreamState {
    /// The request's head as it arrives: its fields (and trailers) in arrival order, each
    /// field MockAPNs reads found on the way in.
    var head: RequestHead
    /// Where the header block being received starts in `head`, so a frame record shows
    /// only that block (the request headers, or later the trailers).
    var headerBlockStart = 0
    /// The size of the header block being received, counted as SETTINGS_MAX_HEADER_LIST_SIZE
    /// counts it: name and value lengths plus 32 per field.
    var headerListSize = 0
    /// Stored body bytes; allocated on the first DATA chunk only.
    var body: [UInt8] = []
    /// Every body byte received, stored or not.
    var bodyLength = 0
    /// The header list grew past MAX_HEADER_LIST_SIZE (`HeaderListOverflowResponse.answer431`):
    /// the request is answered 431 and never delivered.
    var headerListOverflowed = false
    /// Whether a response was submitted; a second one is refused.
    var responded = false
    /// The response body nghttp2 pulls DATA frames from.
    var responseBody: ByteBuffer?
    /// The response's status and header list as submitted, for the record of its HEADERS
    /// frame (kept only while frames are recorded).
    var submittedResponse: ResponseHead?

    init(head: RequestHead = RequestHead()) {
        self.head = head
    }
}

/// Per-stream state of one connection, keyed by stream ID.
struct StreamTable {
    private var states: [Int32: StreamState] = [:]

    var count: Int { states.count }

    /// Opens a stream whose request head starts as `head` (empty; see `RequestHead.recycled()`).
    mutating func open(_ streamID: Int32, head: RequestHead = RequestHead()) {
        states[streamID] = StreamState(head: head)
    }

    @discardableResult
    mutating func close(_ streamID: Int32) -> StreamState? {
        states.removeValue(forKey: streamID)
    }

    mutating func removeAll() {
        states.removeAll()
    }

    /// Runs `body` on the stream's state in place; `nil` when the stream is unknown.
    @discardableResult
    mutating func update<Result>(_ streamID: Int32, _ body: (inout StreamState) -> Result) -> Result? {
        guard let index = states.index(forKey: streamID) else { return nil }
        return body(&states.values[index])
    }
}
