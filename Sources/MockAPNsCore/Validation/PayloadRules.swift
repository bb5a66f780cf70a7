/// Apple's rules for the notification body (apns-protocol A.5 and G.3), shared by both
/// protocol mouths.
package struct PayloadRules: Sendable {
    /// The limits and the shape policy come from here.
    package var options: ValidationOptions

    package init(options: ValidationOptions = .default) {
        self.options = options
    }

    /// The reason to refuse `request`'s payload, if any, checking in this order:
    /// `PayloadEmpty`, then `PayloadTooLarge` (the VoIP limit applies to `apns-push-type: voip`,
    /// and to a `.voip` topic sent without a push type), then the non-object policy. `json` is
    /// the payload already examined, when the caller has it; otherwise it is examined here.
    package func check(_ request: PushRequest, json: PayloadJSON? = nil) -> Reason? {
        let payload = request.payload
        if payload.isEmpty { return .payloadEmpty }
        if payload.count > limit(for: request) { return .payloadTooLarge }
        if case .reject(let reason) = options.nonObjectPayload, !(json ?? PayloadJSON(payload)).isObject {
            return reason
        }
        return nil
    }

    /// The body limit in bytes that applies to `request`.
    package func limit(for request: PushRequest) -> Int {
        isVoIP(request) ? options.voipPayloadLimit : options.payloadLimit
    }

    private func isVoIP(_ request: PushRequest) -> Bool {
        if let pushType = request.pushType { return pushType == .voip }
        guard let topic = request.topic else { return false }
        return TopicRules.suffix(of: topic)?.type == .voip
    }
}
