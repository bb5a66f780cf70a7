import MockAPNsCore
import MockAPNsWire

/// A rule written back as a scenario file holds it, the inverse of the decoder: decoding
/// what this writes gives the same rule. The control API answers an added rule with it, and
/// a rule made in Swift is checked by writing it and decoding the text with the one decoder.
extension ScenarioRule {
    /// The rule as JSON text, keys in the schema's order.
    package var jsonText: String {
        var writer = JSONWriter()
        write(into: &writer, key: nil)
        return writer.text
    }

    /// Writes the rule as an object, under `key` inside an object or as an element.
    package func write(into json: inout JSONWriter, key: String?) {
        json.beginObject(key)
        if !name.isEmpty { json.string("name", name) }
        json.string("stage", stage.rawValue)
        if match != ScenarioMatch() { match.write(into: &json) }
        if let action { Self.write(action, into: &json) }
        if let delay { Self.write(delay, into: &json) }
        json.integer("times", times)
        json.string("requiresState", requiresState)
        json.string("setsState", setsState)
        json.endObject()
    }

    private static func write(_ action: ScenarioAction, into json: inout JSONWriter) {
        json.beginObject("action")
        json.string("type", ScenarioDecoder.ActionType(of: action).rawValue)
        switch action {
        case .accept, .setDevice:
            break
        case .reject(let reason, let timestamp):
            json.string("reason", reason.rawValue)
            json.integer("timestamp", timestamp)
        case .respond(let response):
            json.integer("status", response.status)
            if !response.headers.isEmpty {
                json.beginObject("headers")
                for header in response.headers { json.string(header.name, header.value) }
                json.endObject()
            }
            json.string("body", response.body)
            json.string("reason", response.reason)
            json.integer("legacyStatus", response.legacyStatus?.rawValue)
        case .refuseHandshake(let alert):
            json.integer("alert", alert.code)
        case .limitRate(let window):
            json.integer("pushes", window.pushes)
            json.raw("perSeconds", json: number(Double(window.perMilliseconds) / 1000))
        case .fault(let fault):
            write(fault, into: &json)
        }
        json.endObject()
    }

    private static func write(_ fault: ScenarioFault, into json: inout JSONWriter) {
        switch fault {
        case .closeConnection, .resetConnection, .stall, .shutdown:
            break
        case .goAway(let goAway):
            json.integer("errorCode", goAway.errorCode)
            switch goAway.lastStream {
            case .lastReceived: break
            case .current: json.string("lastStreamId", "current")
            case .id(let id): json.integer("lastStreamId", id)
            }
            json.string("reason", goAway.reason)
            json.string("debugData", goAway.debugData)
            if !goAway.closeConnection { json.bool("closeConnection", false) }
            if goAway.answerRequest { json.bool("answerRequest", true) }
        case .resetStream(let errorCode):
            json.integer("errorCode", errorCode)
        case .lowerMaxConcurrentStreams(let limit):
            json.integer("limit", limit)
        case .sendGarbage(let garbage):
            if let bytes = garbage.bytes {
                json.string("hex", String(decoding: bytes.flatMap { [HexDigits.digit($0 >> 4, uppercase: false), HexDigits.digit($0 & 0x0F, uppercase: false)] }, as: UTF8.self))
            } else {
                json.integer("length", garbage.length)
            }
            if garbage.insideTLS { json.bool("insideTLS", true) }
        case .closeAfterBytes(let bytes):
            json.integer("bytes", bytes)
        }
    }

    private static func write(_ delay: ScenarioDelay, into json: inout JSONWriter) {
        json.beginObject("delay")
        switch delay {
        case .fixed(let milliseconds):
            json.string("distribution", "fixed")
            json.raw("milliseconds", json: number(milliseconds))
        case .uniform(let low, let high):
            json.string("distribution", "uniform")
            json.raw("minMilliseconds", json: number(low))
            json.raw("maxMilliseconds", json: number(high))
        case .logNormal(let median, let sigma, let cap):
            json.string("distribution", "lognormal")
            json.raw("medianMilliseconds", json: number(median))
            json.raw("sigma", json: number(sigma))
            if let cap { json.raw("maxMilliseconds", json: number(cap)) }
        }
        json.endObject()
    }

    /// A number as JSON: whole numbers without a fraction, others as Swift prints them
    /// (shortest text that reads back to the same value).
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

extension ScenarioMatch {
    /// The matchers given, as the rule's `match` object; sets are written sorted, so the text
    /// is the same every time.
    func write(into json: inout JSONWriter) {
        json.beginObject("match")
        json.strings("protocols", protocols.map { $0.map(\.rawValue).sorted() })
        json.strings("tokens", tokens.map { $0.sorted() })
        json.strings("topics", topics.map { $0.sorted() })
        json.strings("pushTypes", pushTypes.map { $0.sorted() })
        if let priorities {
            json.beginArray("priorities")
            for priority in priorities.sorted() { json.integer(nil, priority) }
            json.endArray()
        }
        if let authentication {
            json.beginObject("authentication")
            json.string("kind", authentication.kind?.rawValue)
            json.string("teamId", authentication.teamID)
            json.string("keyId", authentication.keyID)
            json.endObject()
        }
        if let payloadSize { Self.write(payloadSize, key: "payloadSize", into: &json, allowsEquals: false) }
        if !payload.isEmpty {
            json.beginArray("payload")
            for condition in payload {
                json.beginObject()
                json.string("path", condition.path.joined(separator: "."))
                if let equals = condition.equals { json.value("equals", equals) }
                json.bool("exists", condition.exists)
                json.endObject()
            }
            json.endArray()
        }
        if let requestIndex {
            json.beginObject("requestIndex")
            json.string("scope", requestIndex.scope.rawValue)
            Self.writeBounds(requestIndex.range, into: &json, allowsEquals: true)
            json.integer("every", requestIndex.every)
            json.endObject()
        }
        if let connectionIndex { Self.write(connectionIndex, key: "connectionIndex", into: &json, allowsEquals: true) }
        if let probability { json.raw("probability", json: ScenarioRule.number(probability)) }
        json.strings("channels", channels.map { $0.sorted() })
        json.strings("channelOperations", channelOperations.map { $0.map(\.rawValue).sorted() })
        json.endObject()
    }

    private static func write(_ range: IntegerRange, key: String, into json: inout JSONWriter, allowsEquals: Bool) {
        json.beginObject(key)
        writeBounds(range, into: &json, allowsEquals: allowsEquals)
        json.endObject()
    }

    private static func writeBounds(_ range: IntegerRange, into json: inout JSONWriter, allowsEquals: Bool) {
        if allowsEquals, let min = range.min, range.max == min {
            json.integer("equals", min)
            return
        }
        json.integer("min", range.min)
        json.integer("max", range.max)
    }
}
