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

/// A payload's JSON, examined in one pass for every question asked of it: whether it is a
/// JSON object (`ValidationOptions.nonObjectPayload`), where it stops being JSON (the "payload
/// is not JSON" diagnosis, and the legacy gateway's `invalidJSONPayload` policy), and, on the
/// legacy gateway, where its JSON ends (the length-prefix mistake diagnoses). Made once per
/// notification.
package struct PayloadJSON: Sendable, Equatable {
    /// Where the payload stops being one JSON value; `nil` when it is one (or is empty).
    package let problem: PayloadJSONCheck.Problem?
    /// Whether the payload is valid UTF-8 holding exactly one JSON object, nested at most
    /// 512 deep (whitespace around it allowed).
    package let isObject: Bool
    /// The scan of the first JSON value: where it ends, or why there is none (`nil` for an
    /// empty payload).
    package let scan: JSONScanner.Outcome?

    package init(_ payload: [UInt8]) {
        self = payload.withUnsafeBytes { PayloadJSON($0) }
    }

    package init(_ payload: UnsafeRawBufferPointer) {
        guard !payload.isEmpty else {
            problem = nil
            isObject = false
            scan = nil
            return
        }
        let examined = JSONScanner.examine(payload)
        switch examined.outcome {
        case .complete: problem = examined.trailing.map { .badByte(offset: $0) }
        case .truncated: problem = .incomplete
        case .invalid(let offset): problem = .badByte(offset: offset)
        }
        isObject = examined.isObject
        scan = examined.outcome
    }
}
