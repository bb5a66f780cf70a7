import MockAPNsWire
import MockAPNsCore
import MockAPNsJournal

/// What of an HTTP/2 frame may be recorded: provider tokens as the journal's settings say
/// (without their signature by default) wherever a frame carries text.
enum JournalHTTP2 {
    /// `record` with its header values and GOAWAY debug data as they may be recorded. A frame
    /// without text (most of them), or a setting that keeps tokens whole, is passed as it is.
    /// `lastAuthorization` remembers the connection's last `authorization` value and its
    /// recordable form: a provider sends the same token for up to an hour, and finding its
    /// signature again for every request would cost more than the rest of the frame's record.
    static func recordable(
        _ record: HTTP2FrameRecord, providerTokens: ProviderTokenRecording, lastAuthorization: RecordedAuthorization? = nil
    ) -> HTTP2FrameRecord {
        guard providerTokens != .whole else { return record }
        var record = record
        switch record.details {
        case .headers(let headers):
            // The server's own answers (status, apns-id, a scenario's headers) carry no token a
            // client sent; only what came in is looked at.
            guard record.direction == .inbound else { return record }
            record.details = .headers(recordable(headers, providerTokens, lastAuthorization))
        case .goaway(let code, let lastStream, let debugData):
            record.details = .goaway(errorCode: code, lastStreamID: lastStream, debugData: recorded(debugData, providerTokens))
        case .empty, .settings, .rstStream, .windowUpdate, .ping:
            break
        }
        return record
    }

    /// `headers` as they may be recorded. The list is copied only when a value changes (the
    /// `authorization` header, nearly always the only one).
    private static func recordable(
        _ headers: [HTTPHeader], _ providerTokens: ProviderTokenRecording, _ lastAuthorization: RecordedAuthorization?
    ) -> [HTTPHeader] {
        var recorded = headers
        for index in headers.indices {
            let header = headers[index]
            let value: String
            switch providerTokens {
            case .redacted where header.name == "authorization":
                value = ProviderTokenRedaction.placeholder
            case .withoutSignature where header.name == "authorization":
                value = lastAuthorization.map { $0.recordable(header.value, providerTokens) } ?? providerTokens.apply(header.value)
            case .redacted, .withoutSignature, .whole:
                // Any header may carry a token (a misspelt `authorization`, a proxy's copy).
                value = providerTokens.apply(header.value)
            }
            // `apply` returns the very string it was given when there is nothing to hide.
            if value != header.value { recorded[index] = HTTPHeader(name: header.name, value: value) }
        }
        return recorded
    }

    /// GOAWAY debug data with any token in it as the journal records tokens (text only;
    /// binary data stays as sent).
    private static func recorded(_ data: [UInt8], _ providerTokens: ProviderTokenRecording) -> [UInt8] {
        guard let text = String(validating: data, as: UTF8.self) else { return data }
        return Array(providerTokens.apply(text).utf8)
    }
}

/// One connection's last `authorization` header value and the form the journal records it in.
/// Used on the connection's event loop only.
final class RecordedAuthorization {
    private var sent = ""
    private var recorded = ""

    func recordable(_ value: String, _ providerTokens: ProviderTokenRecording) -> String {
        if value != sent {
            sent = value
            recorded = providerTokens.apply(value)
        }
        return recorded
    }
}
