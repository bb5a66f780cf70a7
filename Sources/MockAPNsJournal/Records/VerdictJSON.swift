import MockAPNsCore
/// The JSON form of findings: a `verdict` journal event's `"verdict"` object. Reports
/// (`GET /v1/report`, which `mockapns report` reads back) are written and read by the
/// extension in MockAPNsVerdicts, with the helpers here.
///
/// ```json
/// {"rule":"no-backoff","check":"retriedTooSoon",
///  "provider":{"kind":"providerToken","teamId":"TEAM00000A","keyId":"SANDBOX001"},
///  "message":"retried ... 2 ms after 503 ServiceUnavailable (minimum 100 ms)",
///  "deviceToken":"a1b2...","notifications":[12,15],"connections":[3],
///  "figures":{"delayMilliseconds":2,"minimumMilliseconds":100}}
/// ```
package enum VerdictJSON {
    // MARK: Findings

    package static func write(_ verdict: ProviderVerdict, key: String?, into writer: inout JSONWriter) {
        writer.beginObject(key)
        writer.string("rule", verdict.rule.rawValue)
        writer.string("check", verdict.check.rawValue)
        write(verdict.provider, into: &writer)
        writer.string("message", verdict.message)
        writer.string("deviceToken", verdict.deviceToken)
        writer.beginArray("notifications")
        for sequence in verdict.notifications { writer.integer(nil, sequence) }
        writer.endArray()
        writer.beginArray("connections")
        for connection in verdict.connections { writer.integer(nil, connection) }
        writer.endArray()
        if !verdict.figures.isEmpty {
            writer.beginObject("figures")
            for figure in verdict.figures { writer.integer(figure.name, figure.value) }
            writer.endObject()
        }
        writer.endObject()
    }

    package static func readVerdict(_ object: inout JSONObjectReader) throws(JSONFileError) -> ProviderVerdict {
        let check = try required(object.oneOf("check", VerdictCheck.self), object, "check", "a verdict check")
        if let rule = object.node("rule") {
            guard case .string(let text) = rule.value, text == check.rule.rawValue else {
                throw object.invalid("rule", rule, "expected \"\(check.rule.rawValue)\", the rule of check \(check.rawValue)")
            }
        }
        var providerObject = try required(object.object("provider"), object, "provider", "the provider")
        let verdict = ProviderVerdict(
            check: check, provider: try readIdentity(&providerObject),
            message: try required(object.string("message"), object, "message", "what happened"),
            deviceToken: try object.string("deviceToken"),
            notifications: try integers(&object, "notifications"), connections: try integers(&object, "connections"),
            figures: try figures(&object)
        )
        try object.finish()
        return verdict
    }

    package static func write(_ provider: ProviderIdentity, into writer: inout JSONWriter) {
        writer.beginObject("provider")
        writer.string("kind", provider.kind)
        switch provider {
        case .certificate(let subject):
            writer.string("subject", subject)
        case .providerToken(let team, let key):
            writer.string("teamId", team)
            writer.string("keyId", key)
        case .vapidKey(let key):
            writer.string("key", key)
        case .unidentified:
            break
        }
        writer.string("name", provider.name)
        writer.endObject()
    }

    package static func readIdentity(_ object: inout JSONObjectReader) throws(JSONFileError) -> ProviderIdentity {
        let kind = try required(object.string("kind"), object, "kind", "certificate, providerToken, vapidKey or unidentified")
        let identity: ProviderIdentity
        switch kind {
        case "certificate":
            identity = .certificate(subject: try required(object.string("subject"), object, "subject", "the certificate subject"))
        case "providerToken":
            identity = .providerToken(
                teamID: try required(object.string("teamId"), object, "teamId", "the team id"),
                keyID: try required(object.string("keyId"), object, "keyId", "the key id"))
        case "vapidKey":
            identity = .vapidKey(try required(object.string("key"), object, "key", "the VAPID public key"))
        case "unidentified":
            identity = .unidentified
        default:
            throw JSONFileError(path: object.path(of: "kind"), position: object.position,
                                message: "unknown provider kind \"\(kind)\"; known: certificate, providerToken, vapidKey, unidentified")
        }
        _ = try object.string("name")  // follows from the rest
        try object.finish()
        return identity
    }

    // MARK: Helpers

    package static func count(_ object: inout JSONObjectReader, _ key: String) throws(JSONFileError) -> Int {
        Int(try required(object.integer(key, in: 0...Int64(Int32.max)), object, key, "a count"))
    }

    /// An array of integers at `key` (signed values as their bit patterns).
    package static func integers(_ object: inout JSONObjectReader, _ key: String) throws(JSONFileError) -> [UInt64] {
        var values: [UInt64] = []
        for (path, node) in try object.array(key) ?? [] {
            guard case .number(let text) = node.value else {
                throw JSONFileError(path: path, position: node.position, message: "expected an integer")
            }
            if let value = UInt64(text) {
                values.append(value)
            } else if let value = Int64(text) {
                values.append(UInt64(bitPattern: value))
            } else {
                throw JSONFileError(path: path, position: node.position, message: "expected an integer")
            }
        }
        return values
    }

    package static func figures(_ object: inout JSONObjectReader) throws(JSONFileError) -> [JournalFigure] {
        guard let node = object.node("figures") else { return [] }
        guard case .object(let members) = node.value else {
            throw object.invalid("figures", node, "expected an object of named numbers, found \(node.value.kindDescription)")
        }
        var figures: [JournalFigure] = []
        for member in members {
            guard case .number(let text) = member.value.value, let value = Int64(text) else {
                throw object.invalid("figures", member.value, "expected an integer for \"\(member.key)\"")
            }
            figures.append(JournalFigure(member.key, value))
        }
        return figures
    }

    package static func required<Value>(_ value: Value?, _ object: JSONObjectReader, _ key: String, _ expected: String) throws(JSONFileError) -> Value {
        guard let value else { throw object.missing(key, expected: expected) }
        return value
    }
}
