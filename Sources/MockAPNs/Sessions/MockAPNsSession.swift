/// A session: credentials the server issued, and everything done with them kept apart from
/// other sessions. Every request authenticated with the session's provider key or client
/// certificate is decided by the session's scenario and rules against its registry, and its
/// record says the session (`authentication.session` in the journal's JSON); the session's
/// control token sees and changes only that.
///
/// Made by `MockAPNsServer.createSession` (or `POST /v1/sessions`). The PEM texts are the
/// session's secrets: hand them to the client under test, never to a log.
public struct MockAPNsSession: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// The session's id, as its records and the control API name it.
    public let id: String
    /// The team its key and certificate belong to (the token's `iss`, the certificate's `OU`).
    public let teamID: String
    /// Its provider key's id (the token header's `kid`).
    public let keyID: String
    /// The provider key, as Apple's `AuthKey_<KEYID>.p8` holds it (PKCS#8 PEM, P-256).
    public let providerKeyPEM: String
    /// The topics its certificate lists and its key may push to.
    public let topics: [String]
    /// Its client certificate (PEM), for both environments; `nil` when the server cannot issue
    /// one (its CA's key is not in the credentials folder, or another CA is trusted).
    public let certificatePEM: String?
    /// The certificate's private key (PEM).
    public let certificateKeyPEM: String?
    /// Why there is no certificate, when there is none.
    public let certificateUnavailable: String?
    /// The bearer token that scopes the control API to this session.
    public let controlToken: String
    /// How long the session may go unused before it ends; `nil`: until it is ended.
    public let idleTimeout: Duration?

    /// `AuthKey_<KEYID>.p8`, Apple's file name for the key.
    public var providerKeyFileName: String { "AuthKey_\(keyID).p8" }

    /// Says the session without its secrets.
    public var description: String { "MockAPNsSession(\(id), team \(teamID), key \(keyID), topics \(topics))" }

    /// What `dump` and debuggers show: the session without its keys and token.
    public var customMirror: Mirror {
        Mirror(self, children: ["id": id, "teamID": teamID, "keyID": keyID, "topics": topics], displayStyle: .struct)
    }
}
