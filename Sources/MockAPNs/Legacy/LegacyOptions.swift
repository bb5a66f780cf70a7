import MockAPNsCore
import MockAPNsLegacy

extension MockAPNsConfiguration {
    /// The legacy binary gateway and feedback service (apns-protocol D and E): ports, the
    /// TLS versions old clients need, and the era of Apple's rules to imitate.
    package struct LegacyOptions: Sendable, Equatable {
        /// The binary gateway's port. `0` (the default) picks a free port; `mockapns serve`
        /// uses Apple's 2195.
        package var gatewayPort: Int = 0
        /// The feedback service's port. `0` (the default) picks a free port; `mockapns serve`
        /// uses Apple's 2196.
        package var feedbackPort: Int = 0
        /// Accept TLS 1.0 and 1.1 (at OpenSSL security level 0) on both legacy ports, for
        /// clients from the binary era. Off by default: TLS 1.2 only.
        package var allowOldTLS: Bool = false
        /// Bytes the gateway cannot parse: status 128 or, by default, a silent close.
        package var parseErrorPolicy: LegacyParseErrorPolicy = .silentClose
        /// The token length in bytes, 1 to 100. Default 32, the size of every token Apple
        /// issued in the binary era.
        package var tokenLength: Int = 32
        /// Accept any token length from 1 to `tokenLength` instead of exactly `tokenLength`
        /// (Apple's 2018 text: "up to 100 bytes"). Off by default.
        package var variableTokenLength: Bool = false
        /// The largest payload in bytes: 2048 (iOS 8 and later, the default) or 256 (iOS 7
        /// and before). 1 to 65535.
        package var maximumPayloadLength: Int = 2048
        /// A notification whose payload is not JSON: accepted (the default), refused with a
        /// status packet, or closed on silently. What Apple's gateway did is not recorded.
        package var invalidJSONPayload: LegacyInvalidJSONPolicy = .accept

        package init() {}

        /// The codec's options for one gateway connection.
        package var sessionOptions: LegacySessionOptions {
            let length: LegacyLimits.TokenLength = variableTokenLength ? .atMost(tokenLength) : .exactly(tokenLength)
            return LegacySessionOptions(
                limits: LegacyLimits(tokenLength: length, maximumPayloadLength: maximumPayloadLength),
                parseErrorPolicy: parseErrorPolicy,
                invalidJSONPayload: invalidJSONPayload
            )
        }

        /// Every key of the `legacy` object in a configuration file.
        static let fileKeys = [
            "gatewayPort", "feedbackPort", "allowOldTLS", "parseErrorPolicy", "tokenLength",
            "variableTokenLength", "maximumPayloadLength", "invalidJSONPayload",
        ]

        /// `"accept"`, `"silentClose"`, or a status the packet carries (a `LegacyStatus` byte
        /// other than 0 and 10). Shared by the configuration file and the command line.
        package static func invalidJSONPolicy(_ value: JSONValue) -> LegacyInvalidJSONPolicy? {
            switch value {
            case .string("accept"): return .accept
            case .string("silentClose"): return .closeSilently
            case .number(let text), .string(let text):
                guard let byte = UInt8(text), let status = LegacyStatus(rawValue: byte), status != .noErrors, status != .shutdown else {
                    return nil
                }
                return .refuse(status)
            default: return nil
            }
        }

        /// Reads the `legacy` object of a configuration file over these values. Unknown keys
        /// are errors.
        mutating func read(_ object: inout JSONObjectReader) throws(JSONFileError) {
            if let port = try object.integer("gatewayPort", in: 0...65535) { gatewayPort = Int(port) }
            if let port = try object.integer("feedbackPort", in: 0...65535) { feedbackPort = Int(port) }
            if let allow = try object.bool("allowOldTLS") { allowOldTLS = allow }
            if let policy = try object.oneOf("parseErrorPolicy", LegacyParseErrorPolicy.self) { parseErrorPolicy = policy }
            if let length = try object.integer("tokenLength", in: 1...Int64(LegacyLimits.protocolMaximumTokenLength)) {
                tokenLength = Int(length)
            }
            if let variable = try object.bool("variableTokenLength") { variableTokenLength = variable }
            if let maximum = try object.integer("maximumPayloadLength", in: 1...Int64(UInt16.max)) {
                maximumPayloadLength = Int(maximum)
            }
            if let node = object.node("invalidJSONPayload") {
                guard let policy = Self.invalidJSONPolicy(node.value) else {
                    throw object.invalid("invalidJSONPayload", node, "expected \"accept\", \"silentClose\" or a status byte such as 1 (processing error) or 255 (unknown)")
                }
                invalidJSONPayload = policy
            }
            try object.finish(allowed: Self.fileKeys)
        }
    }
}
