import MockAPNsWire
/// Where a notification payload stops being JSON, as the "payload is not JSON" diagnosis says
/// it on both protocols; `PayloadJSON` finds it. Whether such a payload is refused is
/// `ValidationOptions.nonObjectPayload` (and, on the legacy gateway, `invalidJSONPayload`).
package enum PayloadJSONCheck {
    /// What is wrong with a payload that is not one JSON value.
    package enum Problem: Sendable, Equatable {
        /// The first byte that cannot continue (or, after a complete value, follow) the JSON.
        case badByte(offset: Int)
        /// The bytes stop before the JSON value is complete.
        case incomplete
    }

    /// The problem in plain words, as the legacy gateway's diagnosis says it.
    package static func describe(_ problem: Problem) -> String {
        switch problem {
        case .badByte(let offset): "the payload is not valid JSON (first bad byte at offset \(offset))"
        case .incomplete: "the payload is not valid JSON: it stops before the JSON is complete"
        }
    }
}

/// A payload's JSON, examined once for every question asked of it: whether it is a JSON
/// object (`ValidationOptions.nonObjectPayload`), where it stops being JSON (the "payload is
/// not JSON" diagnosis, and the legacy gateway's `invalidJSONPayload` policy), on the legacy
/// gateway where its JSON ends (the length-prefix mistake diagnoses), whether it is JSON at
/// all (the delivery view), and, when a reader of the request needs its structure (the
/// payload type rules, a scenario's payload matches), its JSON value. Made once per
/// notification; every reader reads this one instead of looking at the bytes again.
package struct PayloadJSON: Sendable, Equatable {
    /// Where the payload stops being one JSON value; `nil` when it is one (or is empty).
    package let problem: PayloadJSONCheck.Problem?
    /// Whether the payload is valid UTF-8 holding exactly one JSON object, nested at most
    /// 512 deep (whitespace around it allowed).
    package let isObject: Bool
    /// Whether the payload is valid UTF-8 holding exactly one JSON value (whitespace around
    /// it allowed): what may be shown as JSON.
    package let isJSON: Bool
    /// The scan of the first JSON value: where it ends, or why there is none (`nil` for an
    /// empty payload).
    package let scan: JSONScanner.Outcome?
    /// Whether the examination was asked to keep the payload's JSON value (`keepingValue`).
    package let keepsValue: Bool
    /// The payload's JSON value when it was kept; `nil` when it was not, or when the payload
    /// is not one JSON value the parser takes (it refuses a repeated key and nesting past 256).
    package let value: JSONValue?

    /// Examines `payload`; with `keepingValue`, also makes its JSON value, once, for every
    /// reader of the request that needs its structure.
    package init(_ payload: [UInt8], keepingValue: Bool = false) {
        self = payload.withUnsafeBytes { PayloadJSON($0, keepingValue: keepingValue) }
    }

    package init(_ payload: SharedBytes, keepingValue: Bool = false) {
        self = payload.withUnsafeBytes { PayloadJSON($0, keepingValue: keepingValue) }
    }

    package init(_ payload: UnsafeRawBufferPointer, keepingValue: Bool = false) {
        keepsValue = keepingValue
        guard !payload.isEmpty else {
            problem = nil
            isObject = false
            isJSON = false
            scan = nil
            value = nil
            return
        }
        let examined = JSONScanner.examine(payload)
        switch examined.outcome {
        case .complete: problem = examined.trailing.map { .badByte(offset: $0) }
        case .truncated: problem = .incomplete
        case .invalid(let offset): problem = .badByte(offset: offset)
        }
        isObject = examined.isObject
        isJSON = examined.isDocument
        scan = examined.outcome
        // Bytes the scan found to be no JSON value are not handed to the parser. As before,
        // bytes that are not UTF-8 read as U+FFFD inside strings.
        value = keepingValue && problem == nil ? (try? JSONParser.parse(String(decoding: payload, as: UTF8.self)))?.value : nil
    }
}
