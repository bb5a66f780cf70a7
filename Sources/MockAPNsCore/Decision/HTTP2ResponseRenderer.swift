import MockAPNsWire
/// Writes a `Verdict` as the HTTP/2 response APNs sends (apns-protocol A.6), byte for byte.
///
/// - Accepted: `:status 200`, `apns-id`, then `apns-unique-id` when the verdict has one; no
///   body, so HEADERS carries END_STREAM.
/// - Refused: the reason's status, `content-type: application/json`, `apns-id`, and the body
///   `{"reason":"<Reason>"}`, or `{"reason":"<Reason>","timestamp":<ms>}` for 410 reasons.
///
/// The body is assembled by hand: reason strings are plain ASCII identifiers that need no
/// escaping, and an encoder would cost more than the rest of the response.
package enum HTTP2ResponseRenderer {
    /// The response for `verdict`.
    package static func render(_ verdict: Verdict) -> ProviderAnswer {
        switch verdict {
        case .accepted(let apnsID, let uniqueID):
            // The ids are values written after the (here no) other headers: an acceptance
            // makes no list and no string.
            return ProviderAnswer(status: 200, headers: [], apnsID: apnsID, uniqueID: uniqueID, body: nil)

        case .rejected(let reason, let apnsID, let timestamp):
            return ProviderAnswer(
                status: reason.httpStatus, headers: errorHeaders, apnsID: apnsID, idsAfter: errorHeaders.count,
                body: errorBody(reason: reason, timestamp: reason.carriesTimestamp ? timestamp : nil)
            )
        }
    }

    /// The fields of every error answer before its `apns-id`: one list, shared.
    private static let errorHeaders = [HTTPHeader(name: "content-type", value: "application/json")]

    /// `{"reason":"<Reason>"}`, with `,"timestamp":<ms>` before the brace when given.
    package static func errorBody(reason: Reason, timestamp: Int64?) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(64)
        body.append(contentsOf: #"{"reason":""#.utf8)
        body.append(contentsOf: reason.rawValue.utf8)
        body.append(UInt8(ascii: "\""))
        if let timestamp {
            body.append(contentsOf: #","timestamp":"#.utf8)
            appendDecimal(timestamp, to: &body)
        }
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// Appends the decimal digits of `value` (with a minus sign when negative).
    static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        // The largest power of ten not above the value gives the first digit's place.
        var place: UInt64 = 1
        while magnitude / place >= 10 { place *= 10 }
        while place > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8((magnitude / place) % 10))
            place /= 10
        }
    }
}
