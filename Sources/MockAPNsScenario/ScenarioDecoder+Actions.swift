import MockAPNsWire
import MockAPNsCore
/// Decoding of rule actions and delays: each action `type` takes its own keys, and each
/// delay `distribution` its own.
extension ScenarioDecoder {
    // MARK: Actions

    /// The action types, each with the keys it takes besides `type`.
    enum ActionType: String, CaseIterable {
        case accept, reject, respond, closeConnection, resetConnection, goAway, resetStream, stall
        case lowerMaxConcurrentStreams, sendGarbage, closeAfterBytes, refuseHandshake, shutdown, limitRate
        case deviceOffline, deviceOnline

        var keys: [String] {
            switch self {
            case .accept, .closeConnection, .resetConnection, .stall, .shutdown, .deviceOffline, .deviceOnline: return []
            case .reject: return ["reason", "timestamp"]
            case .respond: return ["status", "headers", "body", "reason", "legacyStatus"]
            case .goAway: return ["errorCode", "lastStreamId", "reason", "debugData", "closeConnection", "answerRequest"]
            case .resetStream: return ["errorCode"]
            case .lowerMaxConcurrentStreams: return ["limit"]
            case .sendGarbage: return ["hex", "length", "insideTLS"]
            case .closeAfterBytes: return ["bytes"]
            case .refuseHandshake: return ["alert"]
            case .limitRate: return ["pushes", "perSeconds"]
            }
        }

        /// The type that decodes to `action`: a new action or fault fails to compile here
        /// until it has a `type` (and so a place in the decoder and a test against the schema).
        init(of action: ScenarioAction) {
            switch action {
            case .accept: self = .accept
            case .reject: self = .reject
            case .respond: self = .respond
            case .refuseHandshake: self = .refuseHandshake
            case .limitRate: self = .limitRate
            case .setDevice(let online): self = online ? .deviceOnline : .deviceOffline
            case .fault(let fault):
                switch fault {
                case .closeConnection: self = .closeConnection
                case .resetConnection: self = .resetConnection
                case .goAway: self = .goAway
                case .resetStream: self = .resetStream
                case .stall: self = .stall
                case .lowerMaxConcurrentStreams: self = .lowerMaxConcurrentStreams
                case .sendGarbage: self = .sendGarbage
                case .closeAfterBytes: self = .closeAfterBytes
                case .shutdown: self = .shutdown
                }
            }
        }
    }

    func action(_ node: JSONNode, path: String) -> ScenarioAction? {
        guard var probe = read({ () throws(JSONFileError) in try JSONObjectReader(node, path: path) }) else { return nil }
        guard let type = read({ () throws(JSONFileError) in try probe.oneOf("type", ActionType.self) }) else {
            if !probe.keys.contains("type") {
                let names = ActionType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                errors.append(probe.missing("type", expected: "one of \(names)"))
            }
            return nil
        }
        guard var reader = object(node, path: path, allowed: ["type"] + type.keys) else { return nil }
        _ = reader.node("type")
        let errorCodes = HTTP2ErrorCode.names
        switch type {
        case .accept: return .accept
        case .closeConnection: return .fault(.closeConnection)
        case .resetConnection: return .fault(.resetConnection)
        case .stall: return .fault(.stall)
        case .shutdown: return .fault(.shutdown)
        case .deviceOffline: return .setDevice(online: false)
        case .deviceOnline: return .setDevice(online: true)
        case .reject:
            let reason = required(read { () throws(JSONFileError) in try reader.oneOf("reason", Reason.self) }, reader, "reason",
                                  expected: "an APNs reason such as \"Unregistered\"")
            let timestamp = read { () throws(JSONFileError) in try reader.integer("timestamp", in: 0...Int64.max) }
            return reason.map { .reject($0, timestamp: timestamp) }
        case .respond:
            // A scripted answer is a final response: 1xx cannot end a stream.
            let status = required(read { () throws(JSONFileError) in try reader.integer("status", in: 200...599) }, reader, "status",
                                  expected: "a final HTTP status from 200 to 599")
            var headers: [HTTPHeader] = []
            if let headersNode = reader.node("headers") {
                let headersPath = reader.path(of: "headers")
                if case .object(let members) = headersNode.value {
                    for member in members {
                        let memberPath = "\(headersPath).\(member.key)"
                        if let problem = ResponseHeaderRules.problem(withName: member.key) {
                            fail(memberPath, member.value, problem)
                            continue
                        }
                        guard case .string(let value) = member.value.value else {
                            fail(memberPath, member.value, "expected a string header value, found \(Self.describe(member.value.value))")
                            continue
                        }
                        if let problem = ResponseHeaderRules.problem(withValue: value) {
                            fail(memberPath, member.value, problem)
                            continue
                        }
                        headers.append(HTTPHeader(name: member.key, value: value))
                    }
                } else {
                    fail(headersPath, headersNode, "expected an object of header names to string values, found \(headersNode.value.kindDescription)")
                }
            }
            let body = read { () throws(JSONFileError) in try reader.string("body") }
            let reason = read { () throws(JSONFileError) in try reader.string("reason") }
            var legacy: LegacyStatus?
            if let statusNode = reader.node("legacyStatus") {
                let names = LegacyStatus.allCases.map { String($0.rawValue) }.joined(separator: ", ")
                if case .number(let text) = statusNode.value, let raw = UInt8(text), let value = LegacyStatus(rawValue: raw) {
                    legacy = value
                } else {
                    fail(reader.path(of: "legacyStatus"), statusNode, "expected a legacy status, one of \(names); found \(Self.describe(statusNode.value))")
                }
            }
            return status.map { .respond(ScenarioResponse(status: Int($0), headers: headers, body: body, reason: reason, legacyStatus: legacy)) }
        case .goAway:
            var goAway = ScenarioGoAway()
            goAway.errorCode = code(&reader, "errorCode", names: errorCodes, range: 0...Int64(UInt32.max)) ?? 0
            if let lastNode = reader.node("lastStreamId") {
                switch lastNode.value {
                case .string("current"): goAway.lastStream = .current
                case .string("lastReceived"): goAway.lastStream = .lastReceived
                case .number(let text) where Int32(text).map { $0 >= 0 } == true: goAway.lastStream = .id(Int32(text) ?? 0)
                default:
                    fail(reader.path(of: "lastStreamId"), lastNode,
                         "expected a stream id from 0 to 2147483647, \"current\" or \"lastReceived\", found \(Self.describe(lastNode.value))")
                }
            }
            goAway.reason = read { () throws(JSONFileError) in try reader.string("reason") }
            goAway.debugData = read { () throws(JSONFileError) in try reader.string("debugData") }
            if goAway.reason != nil, goAway.debugData != nil {
                fail(path, node, "expected either \"reason\" or \"debugData\", not both")
            }
            goAway.closeConnection = read { () throws(JSONFileError) in try reader.bool("closeConnection") } ?? true
            goAway.answerRequest = read { () throws(JSONFileError) in try reader.bool("answerRequest") } ?? false
            return .fault(.goAway(goAway))
        case .resetStream:
            let errorCode = code(&reader, "errorCode", names: errorCodes, range: 0...Int64(UInt32.max)) ?? 0x8
            return .fault(.resetStream(errorCode: errorCode))
        case .lowerMaxConcurrentStreams:
            let limit = required(read { () throws(JSONFileError) in try reader.integer("limit", in: 0...Int64(Int32.max)) }, reader, "limit",
                                 expected: "a stream limit from 0 to 2147483647")
            return limit.map { .fault(.lowerMaxConcurrentStreams(UInt32($0))) }
        case .sendGarbage:
            var garbage = ScenarioGarbage()
            if let hexNode = reader.node("hex") {
                if case .string(let text) = hexNode.value, let bytes = HexDigits.bytes(hex: text), !bytes.isEmpty {
                    garbage = ScenarioGarbage(bytes: bytes)
                } else {
                    fail(reader.path(of: "hex"), hexNode, "expected an even number of hex digits, found \(Self.describe(hexNode.value))")
                }
            }
            if let length = read({ () throws(JSONFileError) in try reader.integer("length", in: 1...65_536) }) {
                if garbage.bytes != nil {
                    fail(path, node, "expected either \"hex\" or \"length\", not both")
                }
                garbage.length = Int(length)
            }
            garbage.insideTLS = read { () throws(JSONFileError) in try reader.bool("insideTLS") } ?? false
            return .fault(.sendGarbage(garbage))
        case .closeAfterBytes:
            let bytes = required(read { () throws(JSONFileError) in try reader.integer("bytes", in: 0...Int64(Int32.max)) }, reader, "bytes",
                                 expected: "a byte count")
            return bytes.map { .fault(.closeAfterBytes(Int($0))) }
        case .refuseHandshake:
            let alert = code(&reader, "alert", names: TLSAlert.names, range: 0...255) ?? 40
            return .refuseHandshake(TLSAlert(code: alert))
        case .limitRate:
            let pushes = required(read { () throws(JSONFileError) in try reader.integer("pushes", in: 0...1_000_000_000) }, reader, "pushes",
                                  expected: "how many pushes a window allows, from 0 to 1000000000")
            let seconds = required(read { () throws(JSONFileError) in try reader.double("perSeconds", in: 0.001...31_536_000) }, reader,
                                   "perSeconds", expected: "the window's length in seconds, from 0.001 to 31536000")
            guard let pushes, let seconds else { return nil }
            return .limitRate(RateWindow(pushes: Int(pushes), perMilliseconds: max(1, Int64((seconds * 1000).rounded()))))
        }
    }

    // MARK: Delays

    /// The delay distributions, each with the keys it takes besides `distribution`.
    enum Distribution: String, CaseIterable {
        case fixed, uniform, lognormal

        var keys: [String] {
            switch self {
            case .fixed: ["milliseconds"]
            case .uniform: ["minMilliseconds", "maxMilliseconds"]
            case .lognormal: ["medianMilliseconds", "sigma", "maxMilliseconds"]
            }
        }
    }

    func delay(_ node: JSONNode, path: String) -> ScenarioDelay? {
        guard var probe = read({ () throws(JSONFileError) in try JSONObjectReader(node, path: path) }) else { return nil }
        let distribution = read { () throws(JSONFileError) in try probe.oneOf("distribution", Distribution.self) } ?? .fixed
        guard var reader = object(node, path: path, allowed: ["distribution"] + distribution.keys) else { return nil }
        _ = reader.node("distribution")
        let limit = 600_000.0
        func milliseconds(_ key: String, required isRequired: Bool) -> Double? {
            let value = read { () throws(JSONFileError) in try reader.double(key, in: 0...limit) }
            if isRequired { return required(value, reader, key, expected: "milliseconds from 0 to \(Int(limit))") }
            return value
        }
        switch distribution {
        case .fixed:
            return milliseconds("milliseconds", required: true).map { .fixed(milliseconds: $0) }
        case .uniform:
            guard let low = milliseconds("minMilliseconds", required: true),
                  let high = milliseconds("maxMilliseconds", required: true) else { return nil }
            guard low <= high else {
                fail(path, node, "expected \"minMilliseconds\" not above \"maxMilliseconds\"")
                return nil
            }
            return .uniform(minMilliseconds: low, maxMilliseconds: high)
        case .lognormal:
            let median = milliseconds("medianMilliseconds", required: true)
            let sigma = required(read { () throws(JSONFileError) in try reader.double("sigma", in: 0...5) }, reader, "sigma",
                                 expected: "the standard deviation of the logarithm, from 0 to 5")
            let cap = milliseconds("maxMilliseconds", required: false)
            guard let median, let sigma else { return nil }
            return .logNormal(medianMilliseconds: median, sigma: sigma, maxMilliseconds: cap)
        }
    }
}
