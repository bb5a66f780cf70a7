/// What one HTTP/2 connection remembers about provider tokens. The server's connection owns
/// it and passes it `inout` to `ProviderTokenVerifier.authenticate`; it starts empty.
///
/// It remembers three things, each for one of Apple's rules:
/// - the token verified last, so a repeated token costs one string comparison (no parsing, no
///   signature check) and a different one counts as a token update (20-minute rule);
/// - the team and key of the first authenticated push, which tie the connection to that team
///   and decide which keys may follow (key mixing);
/// - until when the connection refuses requests after a too-early token update.
package struct ProviderTokenConnectionState: Sendable {
    /// A token that passed every check of its own, and when the connection adopted it.
    struct CurrentToken: Sendable {
        var token: String
        var key: ProviderKey
        var issuedAt: Int64
        var notes: [ProviderTokenNote]
        var adoptedAtMilliseconds: Int64
        /// The last request this token authenticated: its exact `authorization` value, its
        /// topic and the identity it got. A provider sends the same pair request after request,
        /// so the next one is answered from here after the checks that depend on the time.
        var lastRequest: (authorization: String, topic: String, identity: ProviderTokenIdentity)?
    }

    var current: CurrentToken?
    /// The key of the first authenticated push. A value copy: later changes to the registry
    /// (new bundle ids, a replaced key) do not reach a connection that is already tied.
    var firstKey: ProviderKey?
    var refusingUntilMilliseconds: Int64?

    /// How many ECDSA signature checks this connection has needed. Each distinct token costs
    /// one; repeats of the current token cost none.
    package internal(set) var signatureVerificationCount = 0

    package init() {}

    /// The team the connection is tied to (the first authenticated push's), if any.
    package var teamID: String? { firstKey?.teamID }

    /// The Key ID of the connection's first authenticated push, if any.
    package var firstKeyID: String? { firstKey?.keyID }

    /// The Key ID of the token the connection verified last, if any.
    package var currentKeyID: String? { current?.key.keyID }
}
