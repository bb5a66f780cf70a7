import MockAPNsWire
import MockAPNsCore
import MockAPNsJournal

/// What of an HTTP/2 frame may be recorded: provider tokens as the journal's settings say
/// (without their signature by default) wherever a frame carries text.
enum JournalHTTP2 {
    /// `record` with its header values and GOAWAY debug data as they may be recorded. A frame
    /// without text (most of them), or a setting that keeps tokens whole, is passed as it is.
    /// `lastHeaders` remembers the connection's last inbound header list and its recordable
    /// form: a provider sends the same token for up to an hour, and most fields of one request
    /// equal those of the one before (the session shares their strings), so looking for
    /// tokens in them again for every request would cost more than the rest of the record.
    static func recordable(
        _ record: HTTP2FrameRecord, providerTokens: ProviderTokenRecording, lastHeaders: RecordedHeaders? = nil
    ) -> HTTP2FrameRecord {
        guard providerTokens != .whole else { return record }
        var record = record
        switch record.details {
        case .headers(let headers):
            // The server's own answers (status, apns-id, a scenario's headers) carry no token a
            // client sent; only what came in is looked at.
            guard record.direction == .inbound else { return record }
            record.details = .headers(lastHeaders?.recordable(headers, providerTokens) ?? recordable(headers, providerTokens))
        case .goaway(let code, let lastStream, let debugData):
            record.details = .goaway(errorCode: code, lastStreamID: lastStream, debugData: recorded(debugData, providerTokens))
        case .response, .empty, .settings, .rstStream, .windowUpdate, .ping:
            // No text a client sent (a response is the server's own answer).
            break
        }
        return record
    }

    /// `headers` as they may be recorded. The list is copied only when a value changes (the
    /// `authorization` header, nearly always the only one).
    static func recordable(_ headers: [HTTPHeader], _ providerTokens: ProviderTokenRecording) -> [HTTPHeader] {
        var recorded = headers
        for index in headers.indices {
            let value = recordable(headers[index], providerTokens)
            // `apply` returns the very string it was given when there is nothing to hide.
            if value != headers[index].value { recorded[index] = HTTPHeader(name: headers[index].name, value: value) }
        }
        return recorded
    }

    /// One field's value as it may be recorded.
    static func recordable(_ header: HTTPHeader, _ providerTokens: ProviderTokenRecording) -> String {
        providerTokens.apply(field: header.name, value: header.value)
    }

    /// GOAWAY debug data with any token in it as the journal records tokens (text only;
    /// binary data stays as sent).
    private static func recorded(_ data: [UInt8], _ providerTokens: ProviderTokenRecording) -> [UInt8] {
        guard let text = String(validating: data, as: UTF8.self) else { return data }
        return Array(providerTokens.apply(text).utf8)
    }
}

/// One connection's last inbound header list and the form the journal records it in. A field
/// equal to the one at the same place in the last list (nearly every field: the same token,
/// topic, push type, path) takes that one's recorded form without being looked at again.
/// Used on the connection's event loop only.
final class RecordedHeaders {
    private var sent: [HTTPHeader] = []
    private var recorded: [HTTPHeader] = []

    func recordable(_ headers: [HTTPHeader], _ providerTokens: ProviderTokenRecording) -> [HTTPHeader] {
        // A list repeating the last one field for field (the session hands over that very
        // list when every field repeats) is recorded as the last one was: the same list, not
        // a copy made to hide its token again.
        if headers.count == sent.count, headers.indices.allSatisfy({ headers[$0] == sent[$0] }) { return recorded }
        var output = headers
        for index in headers.indices {
            let header = headers[index]
            // Equal strings sharing storage (as the session hands repeated fields) compare
            // without reading their bytes.
            if index < sent.count, sent[index] == header {
                if recorded[index] != header { output[index] = recorded[index] }
                continue
            }
            let value = JournalHTTP2.recordable(header, providerTokens)
            if value != header.value { output[index] = HTTPHeader(name: header.name, value: value) }
        }
        sent = headers
        recorded = output
        return output
    }
}
