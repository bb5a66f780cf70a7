/// Where a notification payload stops being JSON: the one check behind the "payload is not
/// JSON" diagnosis on both protocols (the same scanner the legacy gateway's mistake detector
/// uses). It only diagnoses; whether such a payload is refused is `ValidationOptions.nonObjectPayload`.
public enum PayloadJSONCheck {
    /// What is wrong with a payload that is not one JSON value.
    public enum Problem: Sendable, Equatable {
        /// The first byte that cannot continue (or, after a complete value, follow) the JSON.
        case badByte(offset: Int)
        /// The bytes stop before the JSON value is complete.
        case incomplete
    }

    /// `nil` when `payload` is exactly one JSON value with only whitespace around it (an
    /// empty payload has its own reason, `PayloadEmpty`, and is not diagnosed here).
    public static func problem(in payload: [UInt8]) -> Problem? {
        guard !payload.isEmpty else { return nil }
        return payload.withUnsafeBytes { bytes in
            switch JSONScanner.scanValue(bytes) {
            case .complete(let end):
                return JSONScanner.firstNonWhitespace(bytes, from: end).map { .badByte(offset: $0) }
            case .truncated:
                return .incomplete
            case .invalid(let offset):
                return .badByte(offset: offset)
            }
        }
    }

    /// The problem in plain words, as the legacy gateway's diagnosis says it.
    public static func describe(_ problem: Problem) -> String {
        switch problem {
        case .badByte(let offset): "the payload is not valid JSON (first bad byte at offset \(offset))"
        case .incomplete: "the payload is not valid JSON: it stops before the JSON is complete"
        }
    }
}
