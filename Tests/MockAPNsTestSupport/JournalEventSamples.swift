import MockAPNsWire
import MockAPNsCore
import MockAPNsJournal
import MockAPNsBroadcast

/// One journal event of each kind, as full as the kind gets: what the JSON reading tests and
/// the journal store's packing tests go through.
package enum JournalEventSamples {
    private static let authentication = JournalAuthentication(
        kind: "rejected", teamID: "TEAM", keyID: "KEY", refusal: .expiredProviderToken,
        detail: #"iat 1767225600 is 3700 s old; "tokens" last 3600 s"#)

    /// One event of each kind, as full as the kind gets.
    package static let samples: [JournalEventKind] = {
        var notification = NotificationRecord(
            transport: .legacy, deviceToken: "a1b2", topic: "com.example.app", pushType: "alert", requestAPNsID: "id-1",
            priority: 10, expiration: 1_767_225_600, collapseID: "c", legacyIdentifier: 7, payload: Array(#"{"aps":{"alert":"\"hi\""}}"#.utf8),
            authentication: authentication, accepted: false, reason: .unregistered, status: 410, responseAPNsID: "id-2",
            timestamp: 1_767_225_600_000, legacyStatus: .invalidToken, dropped: true)
        notification.legacyCommand = 2
        notification.problem = "a problem"
        notification.environment = .production
        let truncated = NotificationRecord(
            transport: .http2, deviceToken: "ff", payload: [0xFF, 0x00] + Array(repeating: 0x41, count: NotificationRecord.payloadLimit),
            authentication: JournalAuthentication(kind: "none"), accepted: true)
        // A web push with every detail, and one whose body did not decrypt (its message in hex
        // would be a non-UTF-8 plaintext; here none, with the problem instead).
        var webPush = NotificationRecord(
            transport: .webPush, deviceToken: "QsubscriptionId_-", topic: "order-42", expiration: 1_767_225_660, collapseID: "order-42",
            payload: [0x00, 0xFF, 0x10], authentication: JournalAuthentication(kind: "vapid", keyID: "BKey"),
            answer: SentAnswer(status: 201, accepted: true))
        var details = WebPushDetails()
        details.ttl = 60
        details.urgency = "high"
        details.contentEncoding = "aes128gcm"
        details.subject = "mailto:ops@example.com"
        details.audience = "https://127.0.0.1:2200"
        details.jwtExpiration = 1_767_229_200
        details.applicationServerKey = "BKey"
        details.message = Array(#"{"web_push":8030,"notification":{"title":"T \"q\"","navigate":"https://e.example/"}}"#.utf8)
        details.notification = WebPushNotificationContent(
            title: "T \"q\"", body: "é 漢字", navigate: "https://e.example/", lang: "fr", dir: "ltr", tag: "t", silent: true,
            appBadge: 3, mutable: true)
        details.notificationProblem = nil
        webPush.webPush = details
        var undecryptable = NotificationRecord(
            transport: .webPush, deviceToken: "Qother", payload: [1, 2, 3], authentication: JournalAuthentication(kind: "missing"),
            answer: SentAnswer(status: 403, reason: .badJwtToken, accepted: false))
        var unreadable = WebPushDetails()
        unreadable.message = [0xFF, 0xFE]
        unreadable.messageProblem = "the authentication tag does not match"
        unreadable.notificationProblem = "$.notification.navigate: expected an absolute https: URL"
        undecryptable.webPush = unreadable
        // Upstream mode: an answer relayed with the fidelity check's disagreement, and a
        // request the upstream left unanswered.
        var relayedAnswer = SentAnswer.http2(
            ProviderAnswer(status: 200, headers: [HTTPHeader(name: "apns-id", value: "A-1"), HTTPHeader(name: "x-extra", value: "1")], body: nil),
            scripted: true)
        relayedAnswer.upstream = UpstreamRelay(
            origin: "https://api.sandbox.push.apple.com", latencyMicroseconds: 81_234, ownStatus: 400, ownReason: .badDeviceToken, disagrees: true)
        let relayed = NotificationRecord(
            transport: .http2, deviceToken: "a1b2", payload: Array(#"{"aps":{}}"#.utf8),
            authentication: JournalAuthentication(kind: "providerToken", teamID: "TEAM000001", keyID: "KEY0000001"), answer: relayedAnswer)
        var unansweredAnswer = SentAnswer(status: 503, reason: .serviceUnavailable, apnsID: "A-2", accepted: false)
        unansweredAnswer.upstream = UpstreamRelay(
            origin: "https://127.0.0.1:9443", latencyMicroseconds: 10_000_000, failureKind: "timedOut",
            failure: "no answer within 10 s", ownStatus: 200, ownReason: nil, disagrees: false)
        let unanswered = NotificationRecord(
            transport: .http2, deviceToken: "a1b2", payload: [], authentication: JournalAuthentication(kind: "none"), answer: unansweredAnswer)
        var operation = ChannelManagementOutcome(operation: .create, bundleID: "com.example.app", channelID: "Y2hhbm5lbA==", requestID: "r-1")
        operation.storagePolicy = .mostRecentMessageStored
        operation.response = ProviderAnswer(status: 201, headers: [], body: Array(#"{"a":[1,2.5,true,null,"x\"y"],"b":{}}"#.utf8))
        var refusedOperation = ChannelManagementOutcome(operation: nil, bundleID: nil, channelID: nil, requestID: "r-2")
        refusedOperation.reason = .badPath
        refusedOperation.response = ProviderAnswer(status: 404, headers: [], body: nil)
        return [
            .connectionOpened(transport: .http2, peer: "127.0.0.1:5000"),
            .connectionClosed(transport: .feedback, closedBy: .server, reason: "idle"),
            .tlsEstablished(JournalTLSSession(
                version: "TLSv1.3", cipher: "TLS_AES_128_GCM_SHA256", serverName: "localhost", offeredALPN: ["h2", "http/1.1"],
                negotiatedALPN: "h2", clientCertificateSubject: "CN=x", topics: ["com.example.app"], environments: ["sandbox"],
                certificateTrusted: true, resumed: true)),
            .tlsFailed(JournalTLSFailure(
                reason: "no certificate", alertSent: "certificate_required", alertReceived: "bad_certificate", serverName: "s",
                offeredALPN: [], offeredVersions: ["TLSv1.2"], offeredCipherSuites: ["0x1301"])),
            .http2Frame(HTTP2FrameRecord(direction: .inbound, type: .headers, flags: 0x5, streamID: 0, length: 40,
                                          details: .headers([HTTPHeader(name: ":method", value: "POST"), HTTPHeader(name: "x", value: "\"")]))),
            .http2Frame(HTTP2FrameRecord(direction: .outbound, type: .settings, flags: 0, streamID: 0, length: 6,
                                          details: .settings([HTTP2Setting(identifier: HTTP2Setting.maxConcurrentStreams, value: 1000)]))),
            .http2Frame(HTTP2FrameRecord(direction: .outbound, type: .rstStream, flags: 0, streamID: 0, length: 4, details: .rstStream(errorCode: 8))),
            .http2Frame(HTTP2FrameRecord(direction: .outbound, type: .goaway, flags: 0, streamID: 0, length: 30,
                                          details: .goaway(errorCode: 0, lastStreamID: 3, debugData: Array(#"{"reason":"Shutdown"}"#.utf8)))),
            .http2Frame(HTTP2FrameRecord(direction: .outbound, type: .goaway, flags: 0, streamID: 0, length: 10,
                                          details: .goaway(errorCode: 1, lastStreamID: 0, debugData: [0xFF, 0xFE]))),
            .http2Frame(HTTP2FrameRecord(direction: .inbound, type: .windowUpdate, flags: 0, streamID: 0, length: 4, details: .windowUpdate(increment: 65_535))),
            .http2Frame(HTTP2FrameRecord(direction: .inbound, type: .ping, flags: 1, streamID: 0, length: 8, details: .ping(opaqueData: [1, 2, 3, 4, 5, 6, 7, 8]))),
            .http2Frame(HTTP2FrameRecord(direction: .inbound, type: .data, flags: 1, streamID: 0, length: 0, details: .empty)),
            .legacyFrame(JournalLegacyFrame(command: 2, identifier: 9, deviceToken: "ab", payloadLength: 10, frameLength: 50,
                                            problem: "bad", rawBytes: [0, 1, 0xFF], dropped: true)),
            .notification(notification),
            .notification(truncated),
            .notification(webPush),
            .notification(undecryptable),
            .notification(relayed),
            .notification(unanswered),
            .notification(NotificationRecord(
                transport: .http2, deviceToken: "a1", payload: [], authentication: JournalAuthentication(kind: "none"),
                answer: SentAnswer(
                    status: 503, reason: .serviceUnavailable, apnsID: "B", scriptedHeaders: [HTTPHeader(name: "retry-after", value: "5")],
                    scriptedBody: Array(#"{"reason":"ServiceUnavailable"}"#.utf8), accepted: false,
                    fault: .goAway(errorCode: 0, lastStreamID: 7), rule: "maintenance", delayMilliseconds: 250
                ))),
            .notification(NotificationRecord(
                transport: .legacy, deviceToken: "a2", legacyIdentifier: 7, payload: [], authentication: JournalAuthentication(kind: "certificate"),
                answer: SentAnswer(legacyPacket: LegacyErrorResponse(status: .invalidTopicSize, identifier: 7), accepted: false, rule: "status 6"))),
            .notification(NotificationRecord(
                transport: .http2, deviceToken: "a3", payload: [], authentication: JournalAuthentication(kind: "none"),
                answer: SentAnswer(scriptedBody: [0xFF], accepted: false, fault: .sendGarbage(length: 64, insideTLS: true),
                                   undelivered: "the stream was closed before the answer could be written"))),
            .notification(NotificationRecord(
                transport: .http2, deviceToken: "a4", payload: [], authentication: JournalAuthentication(kind: "none"),
                answer: SentAnswer(accepted: false, fault: .closeAfterBytes(10)))),
            .notification(NotificationRecord(
                transport: .http2, deviceToken: "a5", payload: [], authentication: JournalAuthentication(kind: "none"),
                answer: SentAnswer(status: 200, apnsID: "C", accepted: true, fault: .lowerMaxConcurrentStreams(1)))),
            .fault(description: "GOAWAY \"x\""),
            .feedbackTuple(deviceToken: "a1b2", timestampMilliseconds: 1_767_225_600_000),
            .diagnosis(code: .legacyConnectionChurn, message: "many", figures: [JournalFigure("connections", 120), JournalFigure("seconds", 60)]),
            .broadcast(BroadcastRecord(
                bundleID: "com.example.app", channelID: "Y2hhbm5lbA==", topic: "t", pushType: "LiveActivity", requestAPNsID: "a",
                requestID: "r", priority: "10", expiration: "0", storagePolicy: .noMessageStored, payload: Array("{}".utf8),
                authentication: JournalAuthentication(kind: "certificate"), answer: .http2(.accepted(apnsID: "id", uniqueID: "u")))),
            .broadcast(BroadcastRecord(
                requestID: "r", payload: [], authentication: authentication,
                answer: .http2(.rejected(reason: .channelNotRegistered, apnsID: "id", timestamp: nil)))),
            .broadcast(BroadcastRecord(
                requestID: "r", payload: [], authentication: authentication,
                answer: SentAnswer(accepted: false, fault: .resetStream(errorCode: 8), rule: "reset broadcasts"))),
            .channelOperation(ChannelOperationRecord(outcome: operation, authentication: JournalAuthentication(kind: "providerToken", teamID: "T", keyID: "K"))),
            .channelOperation(ChannelOperationRecord(outcome: refusedOperation, authentication: authentication)),
            .notification(NotificationRecord(
                transport: .http2, deviceToken: "a6", payload: Array("{}".utf8),
                authentication: JournalAuthentication(kind: "providerToken", teamID: "T", keyID: "K", issuedAt: 1_767_225_000),
                answer: .http2(.accepted(apnsID: "D", uniqueID: nil)))),
            .verdict(ProviderVerdict(
                check: .retriedTooSoon, provider: .providerToken(teamID: "T", keyID: "K"), message: "retried 2 ms after 503",
                deviceToken: "a1b2", notifications: [3, 5], connections: [4],
                figures: [JournalFigure("delayMilliseconds", 2), JournalFigure("minimumMilliseconds", 100)])),
            .verdict(ProviderVerdict(check: .connectionChurn, provider: .certificate(subject: "CN=x, O=\"y\""), message: "churn")),
            .verdict(ProviderVerdict(check: .lostNotification, provider: .unidentified, message: "lost", notifications: [9])),
            .delivery(DeliveryRecord(
                step: .superseded, cause: .deviceOffline, deviceToken: "a1b2", notificationSequence: 12, atMilliseconds: 1_767_225_600_000,
                untilMilliseconds: 1_769_817_600_000, replacedBy: 14, rule: "r")),
            .delivery(.device("A1B2", online: false, at: 1_767_225_600_000, rule: "phone goes dark")),
            // A response as the session records it: read back as the `.headers` list it stands for.
            .http2Frame(HTTP2FrameRecord(direction: .outbound, type: .headers, flags: 0x4, streamID: 1, length: 30,
                                          details: .response(ResponseHead(
                                              status: 410, headers: [HTTPHeader(name: "content-type", value: "application/json")],
                                              apnsID: .uuid(UUIDBits(high: 0x4F2B_6C1E_9A7D_4E35, low: 0x8C1B_2D3E_4F5A_6B7C, uppercase: true)),
                                              idsAfter: 1)))),
        ]
    }()
}
