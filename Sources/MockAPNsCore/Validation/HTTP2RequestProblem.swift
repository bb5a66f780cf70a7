import MockAPNsWire

/// What made an HTTP/2 push request wrong where the fields of its record cannot show it, in
/// words for the record's `problem`: the header names sent more than once (`DuplicateHeaders`),
/// the method or path no endpoint serves (`MethodNotAllowed`, `BadPath`). For any other answer
/// the record's own fields (token, topic, push type, priority, payload...) say what the
/// refusal concerns, and there is nothing to add.
///
/// Read only for those rare refusals, never on the path of a request answered otherwise.
package enum HTTP2RequestProblem {
    /// The longest path quoted: enough to recognise it, bounded whatever a client sends.
    static let quotedPathLimit = 120

    /// The problem behind `reason`, as the request's `head` shows it; `nil` when it shows none
    /// (a scripted answer, say) or when the reason concerns a field the record keeps.
    package static func describe(_ reason: Reason?, head: RequestHead, scope: DuplicateHeaderScope) -> String? {
        // Three reasons of the many: compared one by one rather than switched over them all.
        if reason == .duplicateHeaders {
            return repeatedNames(head.fields, scope: scope)
        }
        if reason == .badPath {
            let method = head[.method] ?? "no :method"
            guard let path = head[.path] else { return "the request has no :path" }
            return "no endpoint serves \(method) \(quoted(path)): a push goes to POST /3/device/<device token>"
        }
        if reason == .methodNotAllowed {
            return "\(head[.method].map { "method \($0)" } ?? "no :method"): a push is a POST"
        }
        return nil
    }

    /// `apns-topic sent 2 times`: every name sent more than once, in the order first seen (the
    /// list walked again: only for this refusal's record).
    private static func repeatedNames(_ headers: [HTTPHeader], scope: DuplicateHeaderScope) -> String? {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for header in headers {
            if scope == .appleHeaders, !HTTP2RequestValidator.isAppleField(header.name) { continue }
            counts[header.name, default: 0] += 1
            if counts[header.name] == 2 { order.append(header.name) }
        }
        guard !order.isEmpty else { return nil }
        return order.map { "\($0) sent \(counts[$0] ?? 2) times" }.joined(separator: ", ")
    }

    private static func quoted(_ path: String) -> String {
        path.count > quotedPathLimit ? String(path.prefix(quotedPathLimit)) + "…" : path
    }
}
