import MockAPNsWire

/// How one endpoint's answers look around the verdict: which ids they carry, the status of an
/// acceptance, the fields every answer adds. Every decider's verdict becomes the answer
/// written through `render` (device pushes, broadcasts, channel management, web push), and
/// the record says what that answer told the client through `sent`.
package struct ResponseShape: Sendable {
    /// Headers added to every answer (a broadcast's or management request's `apns-request-id`).
    package var extraHeaders: [HTTPHeader] = []
    /// Whether answers carry `apns-id` (and `apns-unique-id`): yes for pushes and broadcasts,
    /// no for the channel management API and web push.
    package var includesAPNsID = true
    /// Whether an accepted answer carries `apns-unique-id` in production too (broadcasts);
    /// device pushes get it on the sandbox only.
    package var uniqueIDInEveryEnvironment = false
    /// The status of an acceptance when it is not APNs' 200: web push answers 201 Created.
    package var acceptedStatus: Int? = nil

    package init(
        extraHeaders: [HTTPHeader] = [], includesAPNsID: Bool = true, uniqueIDInEveryEnvironment: Bool = false,
        acceptedStatus: Int? = nil
    ) {
        self.extraHeaders = extraHeaders
        self.includesAPNsID = includesAPNsID
        self.uniqueIDInEveryEnvironment = uniqueIDInEveryEnvironment
        self.acceptedStatus = acceptedStatus
    }

    /// A device push: the verdict as `HTTP2ResponseRenderer` writes it.
    package static let push = ResponseShape()

    /// `verdict` as an answer of this shape: APNs' response, without the ids the shape does
    /// not carry, with its accepted status (or the `acceptance`'s) and extra headers, then
    /// the acceptance's own fields.
    package func render(_ verdict: Verdict, acceptance: Acceptance? = nil) -> ProviderAnswer {
        var response = HTTP2ResponseRenderer.render(verdict)
        if !includesAPNsID {
            response.apnsID = nil
            response.uniqueID = nil
        }
        // The lists are appended to only when there is something to add: Apple's own answers
        // share their lists, and an append would copy one.
        guard case .accepted = verdict else {
            if !extraHeaders.isEmpty { response.headers.append(contentsOf: extraHeaders) }
            return response
        }
        if let acceptance {
            response.status = acceptance.status
            if let json = acceptance.json {
                response.headers.append(HTTPHeader(name: "content-type", value: "application/json"))
                response.body = json
            }
            response.headers.append(contentsOf: extraHeaders)
            response.headers.append(contentsOf: acceptance.fields)
            return response
        }
        if let acceptedStatus { response.status = acceptedStatus }
        if !extraHeaders.isEmpty { response.headers.append(contentsOf: extraHeaders) }
        return response
    }

    /// What `render(verdict, acceptance:)` tells the client, for the record.
    package func sent(_ verdict: Verdict, acceptance: Acceptance? = nil) -> SentAnswer {
        var sent = SentAnswer.http2(verdict)
        if !includesAPNsID {
            sent.apnsID = nil
            sent.uniqueID = nil
        }
        if case .accepted = verdict {
            if let status = acceptance?.status ?? acceptedStatus { sent.status = status }
        }
        return sent
    }
}

/// What an acceptance says besides APNs' bare `200`: the channel management API answers
/// `201` with the new channel's `apns-channel-id`, `200` with the channel as JSON, `204`
/// for a deletion. A decider returns it beside its `.accepted` verdict; `ResponseShape`
/// writes it.
package struct Acceptance: Sendable, Equatable {
    package var status: Int
    /// A JSON body, sent with `content-type: application/json`; `nil`: no body.
    package var json: [UInt8]?
    /// Fields after the shape's own (`apns-channel-id`).
    package var fields: [HTTPHeader]

    package init(status: Int, json: [UInt8]? = nil, fields: [HTTPHeader] = []) {
        self.status = status
        self.json = json
        self.fields = fields
    }
}
