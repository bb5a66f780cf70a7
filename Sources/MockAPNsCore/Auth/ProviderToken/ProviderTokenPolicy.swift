/// The tunable parts of provider-token authentication. The defaults follow Apple where Apple
/// has said something; the rest are the mock's documented choices.
package struct ProviderTokenPolicy: Sendable, Equatable {
    /// A token whose `iat` is this many seconds old or more gets ExpiredProviderToken.
    /// Apple: one hour.
    package var maximumTokenAgeSeconds: Int64

    /// How far `iat` may lie ahead of the server clock before the token is refused with
    /// InvalidProviderToken. Apple's behaviour is unverified. Default 60 s: enough for the
    /// clock skew between NTP-synchronized hosts, while a token minted with the clock far
    /// ahead, or with `iat` in milliseconds, is refused.
    package var futureIssuedAtToleranceSeconds: Int64

    /// A different token less than this many seconds after the connection's current token was
    /// first accepted gets TooManyProviderTokenUpdates. Apple: 20 minutes.
    package var minimumTokenUpdateIntervalSeconds: Int64

    /// Whether a too-early token update makes the connection refuse every request, the old
    /// token's too, with TooManyProviderTokenUpdates until the interval has passed. Apple's
    /// developer support describes the connection as unusable until then (default `true`);
    /// `false` refuses only the requests that carry the new token.
    package var earlyUpdateBlocksConnection: Bool

    /// The reason for a token from another team on a connection already tied to a team.
    /// Apple documents that it is an error but not which; the default, InvalidProviderToken,
    /// is pushy's mock's choice. Forbidden is the other plausible candidate.
    package var otherTeamReason: Reason

    /// Whether a token naming a key this server does not know is taken on trust (its team
    /// from `iss`, every topic and environment, the signature unverified) instead of being
    /// refused. Upstream mode sets it: the provider signs with its real key, which only the
    /// upstream can check, and MockAPNs judges the rest beside it.
    package var trustsUnknownKeys = false

    package init(
        maximumTokenAgeSeconds: Int64 = 3600,
        futureIssuedAtToleranceSeconds: Int64 = 60,
        minimumTokenUpdateIntervalSeconds: Int64 = 1200,
        earlyUpdateBlocksConnection: Bool = true,
        otherTeamReason: Reason = .invalidProviderToken
    ) {
        self.maximumTokenAgeSeconds = maximumTokenAgeSeconds
        self.futureIssuedAtToleranceSeconds = futureIssuedAtToleranceSeconds
        self.minimumTokenUpdateIntervalSeconds = minimumTokenUpdateIntervalSeconds
        self.earlyUpdateBlocksConnection = earlyUpdateBlocksConnection
        self.otherTeamReason = otherTeamReason
    }
}
