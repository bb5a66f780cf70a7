// Web push in the server: its settings, its listener (HTTP/2 and HTTP/1.1 over TLS), the
// exchange both protocols answer through, and the Swift API for subscriptions (the rules
// are MockAPNsWebPush's).

import MockAPNsAnswer
import MockAPNsCore
import MockAPNsHTTP2
import MockAPNsJournal
import MockAPNsScenario
import MockAPNsWebPush
import MockAPNsWire

extension HTTP2ConnectionBridge {
    /// A request on the web push listener, over HTTP/2: every path is a push to a
    /// subscription (`POST /<token>`), decided by the web push core.
    func answerWebPush(_ request: HTTP2Request, handler: NGHTTP2ServerHandler) {
        guard let service = services.webPush else { return }
        let flow = WebPushFlow(
            WebPushRequest(head: request.head, body: request.body, bodyLength: request.bodyLength),
            authority: request.head[.authority], service: service
        )
        let exchange = WebPushExchange(flow, streamID: request.streamID, recorder: journaling.recorder)
        answers.scenarios = service.scenarios(for: flow.decision) ?? services.scenarios
        answers.answer(exchange, on: request.streamID, apnsID: request.head[.apnsID])
    }
}

/// A web push request, over HTTP/2 or HTTP/1.1, as one exchange of the shared answer flow.
final class WebPushExchange: ProviderExchange {
    let shape = WebPushFlow.shape
    let flow: WebPushFlow
    /// The request's HTTP/2 stream; `nil` on HTTP/1.1.
    private let streamID: Int32?
    private let recorder: ConnectionJournal

    init(_ flow: WebPushFlow, streamID: Int32?, recorder: ConnectionJournal) {
        self.flow = flow
        self.streamID = streamID
        self.recorder = recorder
    }

    func scenarioFacts() -> ScenarioRequest { flow.scenarioFacts() }

    func decide() -> CoreAnswer { flow.coreAnswer() }

    func record(_ sent: SentAnswer) {
        // The diagnoses first: whoever waits for the notification finds what was noticed about it.
        for diagnosis in flow.diagnoses {
            recorder.record(diagnosis.event, stream: streamID)
        }
        recorder.record(.notification(flow.record(sent)), stream: streamID)
    }
}
