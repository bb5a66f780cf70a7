import MockAPNsCore
import MockAPNsHTTP2

/// Turns the HTTP/2 handler's frame records into journal values.
enum JournalHTTP2 {
    static func frame(_ record: HTTP2FrameRecord, providerTokens: ProviderTokenRecording) -> JournalHTTP2Frame {
        JournalHTTP2Frame(
            direction: record.direction == .inbound ? .inbound : .outbound,
            type: record.type.description,
            flags: record.flags,
            length: record.length,
            details: details(record.details, providerTokens: providerTokens)
        )
    }

    private static func details(_ details: HTTP2FrameRecord.Details, providerTokens: ProviderTokenRecording) -> JournalHTTP2Frame.Details {
        switch details {
        case .empty:
            return .empty
        case .headers(let headers):
            return .headers(headers.map { header in
                switch providerTokens {
                case .whole:
                    return HTTPHeader(name: header.name, value: header.value)
                case .redacted where header.name == "authorization":
                    return HTTPHeader(name: header.name, value: redactedValue)
                case .redacted, .withoutSignature:
                    // Any header may carry a token (a misspelt `authorization`, a proxy's copy).
                    return HTTPHeader(name: header.name, value: providerTokens.apply(header.value))
                }
            })
        case .settings(let settings):
            return .settings(settings.map { JournalHTTP2Frame.Setting(name: settingName($0.identifier), value: $0.value) })
        case .rstStream(let code):
            return .rstStream(errorCode: code)
        case .goaway(let code, let lastStream, let debugData):
            return .goaway(errorCode: code, lastStreamID: lastStream, debugData: recorded(debugData, providerTokens))
        case .windowUpdate(let increment):
            return .windowUpdate(increment: increment)
        case .ping(let data):
            return .ping(opaqueData: data)
        }
    }

    /// What a redacted `authorization` value reads.
    static let redactedValue = ProviderTokenRedaction.placeholder

    /// GOAWAY debug data with any token in it as the journal records tokens (text only;
    /// binary data stays as sent).
    private static func recorded(_ data: [UInt8], _ providerTokens: ProviderTokenRecording) -> [UInt8] {
        guard providerTokens != .whole, let text = String(validating: data, as: UTF8.self) else { return data }
        return Array(providerTokens.apply(text).utf8)
    }

    /// The RFC name of a SETTINGS parameter, or its hex id.
    static func settingName(_ identifier: UInt16) -> String {
        switch identifier {
        case HTTP2Setting.headerTableSize: "HEADER_TABLE_SIZE"
        case HTTP2Setting.enablePush: "ENABLE_PUSH"
        case HTTP2Setting.maxConcurrentStreams: "MAX_CONCURRENT_STREAMS"
        case HTTP2Setting.initialWindowSize: "INITIAL_WINDOW_SIZE"
        case HTTP2Setting.maxFrameSize: "MAX_FRAME_SIZE"
        case HTTP2Setting.maxHeaderListSize: "MAX_HEADER_LIST_SIZE"
        case 0x8: "ENABLE_CONNECT_PROTOCOL"
        case 0x9: "NO_RFC7540_PRIORITIES"
        default: "0x" + String(identifier, radix: 16)
        }
    }
}
