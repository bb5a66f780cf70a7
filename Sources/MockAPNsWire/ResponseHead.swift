/// A response's HEADERS as the server submits them: `:status`, the fields, and the ids
/// (`apns-id`, `apns-unique-id`) as values, sent after the first `idsAfter` fields. The
/// session writes it to the wire and its frame record keeps it as it is: neither makes a
/// list or a string per response.
///
/// A frame record holds one inline, so its layout is kept small (`JournalEventKind`'s size is
/// every event's): the status and the ids' place are stored in the bytes the ids leave over,
/// and the list comes last (in front, its spare bits no longer matched the other kinds', and
/// the event enum needed a byte more for its tag).
package struct ResponseHead: Sendable, Hashable {
    package var apnsID: MessageID?
    package var uniqueID: MessageID?
    private var statusCode: UInt16
    private var fieldsBeforeIDs: UInt8
    package var headers: [HTTPHeader]

    package init(status: Int, headers: [HTTPHeader], apnsID: MessageID? = nil, uniqueID: MessageID? = nil, idsAfter: Int = 0) {
        self.headers = headers
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.statusCode = UInt16(clamping: status)
        self.fieldsBeforeIDs = UInt8(clamping: min(max(idsAfter, 0), headers.count))
    }

    /// The `:status` (an HTTP status, three digits).
    package var status: Int {
        get { Int(statusCode) }
        set { statusCode = UInt16(clamping: newValue) }
    }

    /// How many of `headers` go out before the ids (at most 255).
    package var idsAfter: Int {
        get { Int(fieldsBeforeIDs) }
        set { fieldsBeforeIDs = UInt8(clamping: min(max(newValue, 0), headers.count)) }
    }

    /// One field as sent: text, or an id given as its value.
    package enum Field: Equatable {
        case text(name: String, value: String)
        case id(name: String, value: MessageID)
    }

    /// The field at `index` in the order sent (`0 ..< fieldCount`): `:status`, the first
    /// `idsAfter` of `headers`, `apns-id`, `apns-unique-id`, the rest of `headers`. Read by
    /// index, not through closures: a closure writing into its caller's buffers would make
    /// those buffers heap boxes, on every response.
    package func field(at index: Int) -> Field {
        if index == 0 { return .text(name: ":status", value: String(status)) }
        let split = min(idsAfter, headers.count)
        var position = index - 1
        if position < split { return .text(name: headers[position].name, value: headers[position].value) }
        position -= split
        if let apnsID {
            if position == 0 { return .id(name: "apns-id", value: apnsID) }
            position -= 1
        }
        if let uniqueID {
            if position == 0 { return .id(name: "apns-unique-id", value: uniqueID) }
            position -= 1
        }
        let header = headers[split + position]
        return .text(name: header.name, value: header.value)
    }

    /// Every field in the order sent, `:status` first, the ids as text.
    package var fields: [HTTPHeader] {
        (0..<fieldCount).map { index in
            switch field(at: index) {
            case .text(let name, let value): HTTPHeader(name: name, value: value)
            case .id(let name, let value): HTTPHeader(name: name, value: value.text)
            }
        }
    }

    /// The number of fields, `:status` included.
    package var fieldCount: Int {
        1 + headers.count + (apnsID == nil ? 0 : 1) + (uniqueID == nil ? 0 : 1)
    }
}
