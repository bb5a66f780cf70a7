/// One request's header block as MockAPNs reads it, whatever the transport (an HTTP/2 stream,
/// web push over HTTP/1.1): every field kept once, in arrival order, for the record, and the
/// fields a rule reads found as they arrive. The mouth appends each field as it decodes it
/// (nghttp2's header callback, the HTTP/1.1 decoder's head); every reader after it (the
/// validator, the scenario's facts, the broadcast and web push deciders, the upstream hop,
/// the record) asks the head for a field instead of walking the list again.
///
/// The head keeps the bytes as decoded, not strings: a reader that compares or checks a value
/// reads its bytes in place, and a string is made only where one is needed. A known field's
/// place is kept in the head itself, so a lookup costs a load and no search.
package struct RequestHead: Sendable, Equatable {
    /// The fields as decoded, back to back: each field's name, then its value, in arrival
    /// order (then trailers, if any). `bytes[0..<byteCount]` is the whole decoded block, the
    /// form a record of the wire can point into.
    @usableFromInline var bytes: [UInt8] = []
    /// Per field, where its value starts and where the field ends in `bytes`; its name starts
    /// where the field before it ended (0 for the first).
    @usableFromInline var spans: [Span] = []
    /// How much of `bytes` and `spans` is this head's. A head made by ``recycled()`` starts
    /// with the storage of the one before it and keeps it, unwritten, while the fields
    /// arriving repeat that one's at the same places (a provider sends the same token, path,
    /// topic and user agent request after request): such a head costs no allocation.
    private var byteCount = 0
    @usableFromInline var fieldCount = 0
    /// Where each known field first came, plus one (0: not sent); 255 for a place past 254,
    /// which a lookup finds by searching from there (a list that long is rare and capped by
    /// the listener's header list limit).
    @usableFromInline var places = Places()
    /// Known fields sent more than once.
    package private(set) var repeated = FieldSet()
    /// Whether a field of a name MockAPNs does not read came more than once.
    package private(set) var repeatsOtherField = false

    package init() {}

    /// A head of `fields`, in order.
    package init(_ fields: [HTTPHeader]) {
        for field in fields { append(field) }
    }

    /// An empty head that starts on this head's storage: while the fields appended repeat
    /// this head's, byte for byte at the same places, nothing is written or allocated; the
    /// first field that differs gives the new head storage of its own.
    package func recycled() -> RequestHead {
        var head = RequestHead()
        head.bytes = bytes
        head.spans = spans
        return head
    }

    /// Whether this head's fields are `earlier`'s, known without reading them: both heads on
    /// one storage (one recycled from the other, or both from a third, and neither written)
    /// and as many fields. Heads with equal fields on storage of their own answer `false`.
    package func hasFields(of earlier: RequestHead) -> Bool {
        // A head's fields are the first `byteCount` bytes and `fieldCount` spans of its
        // storage; storage shared is never written in place (it is copied first).
        fieldCount == earlier.fieldCount && byteCount == earlier.byteCount
            && bytes.withUnsafeBufferPointer { $0.baseAddress } == earlier.bytes.withUnsafeBufferPointer { $0.baseAddress }
            && spans.withUnsafeBufferPointer { $0.baseAddress } == earlier.spans.withUnsafeBufferPointer { $0.baseAddress }
    }

    /// The number of fields, trailers included.
    package var count: Int { fieldCount }

    /// Every field, pseudo-headers included, in arrival order (then trailers, if any): the
    /// request as sent, for the record and for whoever forwards it whole. Made on demand.
    package var fields: [HTTPHeader] { fields(from: 0) }

    /// The fields from the `start`th on (a block of trailers). A field equal byte for byte to
    /// the one at the same place of `earlier` (a connection's previous list) is taken from it,
    /// sharing its strings; when every field is, `earlier` itself is returned, so a request
    /// repeating the one before costs no allocation here.
    package func fields(from start: Int, reusing earlier: [HTTPHeader] = []) -> [HTTPHeader] {
        let start = min(max(start, 0), fieldCount)
        if fieldCount - start == earlier.count,
           (start..<fieldCount).allSatisfy({ index in field(at: index, equals: earlier[index - start]) }) {
            return earlier
        }
        var list: [HTTPHeader] = []
        list.reserveCapacity(fieldCount - start)
        for index in start..<fieldCount {
            let position = index - start
            if position < earlier.count, field(at: index, equals: earlier[position]) {
                list.append(earlier[position])
            } else {
                list.append(HTTPHeader(name: withName(at: index, HTTPHeader.text), value: withValue(at: index, HTTPHeader.text)))
            }
        }
        return list
    }

    /// Adds the next field as it arrived.
    package mutating func append(_ field: HTTPHeader) {
        field.name.withUTF8Bytes { name in
            field.value.withUTF8Bytes { value in _ = append(name: name, value: value) }
        }
    }

    /// Adds the next field as it arrived, from bytes lent for the call. `false` (the field is
    /// not kept) only for a block past 4 GiB, which no listener's header list limit allows.
    @discardableResult
    package mutating func append(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        let (valueStart, nameOverflow) = byteCount.addingReportingOverflow(name.count)
        let (end, valueOverflow) = valueStart.addingReportingOverflow(value.count)
        guard !nameOverflow, !valueOverflow, let span = Span(valueStart: valueStart, end: end) else { return false }
        keep(span, name: name, value: value)
        let index = fieldCount
        fieldCount += 1
        byteCount = end
        guard let known = Field(name) else {
            if !repeatsOtherField, nameAt(index, repeatsAnEarlierName: name) { repeatsOtherField = true }
            return true
        }
        guard places[known] == 0 else {
            repeated.bits |= known.bit
            return true
        }
        places[known] = UInt8(clamping: index + 1)
        return true
    }

    /// Writes the field after the head's last one, unless the storage already holds exactly
    /// that there (a recycled head repeating its predecessor).
    private mutating func keep(_ span: Span, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        if fieldCount < spans.count, spans[fieldCount] == span {
            // Same lengths; the bytes may still differ.
        } else {
            if spans.count > fieldCount { spans.removeSubrange(fieldCount...) }
            if spans.capacity == 0 { spans.reserveCapacity(12) }  // a typical APNs request carries about ten fields
            spans.append(span)
        }
        let end = Int(span.end)
        if end <= bytes.count, bytes.withUnsafeBufferPointer({ stored in
            UnsafeBufferPointer(rebasing: stored[Int(span.valueStart)..<end]).sameBytes(as: value)
                && UnsafeBufferPointer(rebasing: stored[byteCount..<Int(span.valueStart)]).sameBytes(as: name)
        }) {
            return
        }
        if bytes.count > byteCount { bytes.removeSubrange(byteCount...) }
        if bytes.capacity == 0 { bytes.reserveCapacity(Swift.max(512, end)) }  // an APNs head is a few hundred bytes
        bytes.append(contentsOf: name)
        bytes.append(contentsOf: value)
    }

    /// The value of `field`'s first occurrence; `nil` when it was not sent. Bytes that are not
    /// UTF-8 are written `\xHH`. Makes a string: a reader that only compares or checks the
    /// value reads its bytes instead (``withBytes(of:_:)``, ``value(_:is:)``).
    @inlinable
    package subscript(_ field: Field) -> String? {
        withBytes(of: field, HTTPHeader.text)
    }

    /// The value of `field`'s first occurrence as `candidate` when its bytes are exactly
    /// `candidate`'s (a connection's last value, shared instead of made again), else as a new
    /// string; `nil` when it was not sent.
    @inlinable
    package func value(_ field: Field, reusing candidate: String?) -> String? {
        withBytes(of: field) { value in
            if let candidate, candidate.withUTF8Bytes({ $0.sameBytes(as: value) }) { return candidate }
            return HTTPHeader.text(value)
        }
    }

    /// Whether `field` was sent and its first value is exactly `text`.
    @inlinable
    package func value(_ field: Field, is text: StaticString) -> Bool {
        withBytes(of: field) { $0.equals(text) } ?? false
    }

    /// `body` run on the bytes of `field`'s first value, lent for the call; `nil` when the
    /// field was not sent.
    @inlinable
    package func withBytes<Result>(of field: Field, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard let index = index(of: field) else { return nil }
        return withValue(at: index, body)
    }

    /// Whether `field` was sent.
    @inlinable
    package func contains(_ field: Field) -> Bool {
        places[field] != 0
    }

    /// The place of `field`'s first occurrence.
    @inlinable
    func index(of field: Field) -> Int? {
        let place = places[field]
        guard place != 0 else { return nil }
        guard place == UInt8.max else { return Int(place) - 1 }
        return searchedIndex(of: field)
    }

    @usableFromInline
    func searchedIndex(of field: Field) -> Int? {
        // Past the places a byte holds: searched for from there.
        let name = field.name
        return (Int(UInt8.max) - 1..<fieldCount).first { withName(at: $0) { $0.equals(name) } }
    }

    private func withName<Result>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let start = index == 0 ? 0 : Int(spans[index - 1].end)
        return withBytes(start..<Int(spans[index].valueStart), body)
    }

    @inlinable
    func withValue<Result>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        withBytes(Int(spans[index].valueStart)..<Int(spans[index].end), body)
    }

    @inlinable
    func withBytes<Result>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// Whether the field at `index` is `header`, byte for byte.
    private func field(at index: Int, equals header: HTTPHeader) -> Bool {
        withValue(at: index) { value in header.value.withUTF8Bytes { $0.sameBytes(as: value) } }
            && withName(at: index) { name in header.name.withUTF8Bytes { $0.sameBytes(as: name) } }
    }

    /// Whether a field named `name` came before the one at `index`. Quadratic, but only names
    /// MockAPNs does not read are compared (about three per request: a user agent, a content
    /// type and length), and only with earlier names of their length.
    private func nameAt(_ index: Int, repeatsAnEarlierName name: UnsafeBufferPointer<UInt8>) -> Bool {
        (0..<index).contains { earlier in
            withName(at: earlier) { $0.sameBytes(as: name) }
        }
    }

    /// Two heads are equal when they hold the same fields in the same order (whatever storage
    /// they came from).
    package static func == (left: RequestHead, right: RequestHead) -> Bool {
        guard left.fieldCount == right.fieldCount, left.byteCount == right.byteCount else { return false }
        return left.spans[..<left.fieldCount].elementsEqual(right.spans[..<right.fieldCount])
            && left.bytes[..<left.byteCount].elementsEqual(right.bytes[..<right.byteCount])
    }

    /// Where one field's value starts and the field ends in the head's bytes.
    @usableFromInline
    struct Span: Sendable, Equatable {
        @usableFromInline var valueStart: UInt32
        @usableFromInline var end: UInt32

        init?(valueStart: Int, end: Int) {
            guard let valueStart = UInt32(exactly: valueStart), let end = UInt32(exactly: end) else { return nil }
            self.valueStart = valueStart
            self.end = end
        }
    }

    /// One byte per known field, in three words: the head stays a few words long and is
    /// copied without reference counting.
    @usableFromInline
    struct Places: Sendable, Equatable {
        @usableFromInline var words: (UInt64, UInt64, UInt64) = (0, 0, 0)

        static func == (left: Places, right: Places) -> Bool {
            left.words == right.words
        }

        @inlinable
        subscript(field: Field) -> UInt8 {
            get {
                let (word, shift) = Self.position(of: field)
                let value: UInt64 = switch word {
                case 0: words.0
                case 1: words.1
                default: words.2
                }
                return UInt8(truncatingIfNeeded: value >> shift)
            }
            set {
                let (word, shift) = Self.position(of: field)
                let mask = ~(UInt64(0xFF) << shift)
                let bits = UInt64(newValue) << shift
                switch word {
                case 0: words.0 = words.0 & mask | bits
                case 1: words.1 = words.1 & mask | bits
                default: words.2 = words.2 & mask | bits
                }
            }
        }

        @inlinable
        static func position(of field: Field) -> (word: Int, shift: UInt64) {
            (field.rawValue / 8, UInt64(field.rawValue % 8) * 8)
        }
    }
}
