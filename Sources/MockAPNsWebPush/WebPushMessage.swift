/// A push body that decrypted: its bytes, and what they say as Declarative Web Push.
package struct WebPushMessage: Sendable, Equatable {
    package var plaintext: [UInt8]
    /// Set when the plaintext is a valid Declarative Web Push message.
    package var declarative: DeclarativeWebPushMessage?
    /// Set when it has "web_push" but is not valid: the JSON path and what was expected, e.g.
    /// `$.notification.navigate: expected an absolute https: URL, got "/inbox"`.
    package var declarativeProblem: String?

    package init(plaintext: [UInt8], declarative: DeclarativeWebPushMessage? = nil, declarativeProblem: String? = nil) {
        self.plaintext = plaintext
        self.declarative = declarative
        self.declarativeProblem = declarativeProblem
    }

    /// The message read out of `plaintext`.
    init(reading plaintext: [UInt8]) {
        self.plaintext = plaintext
        switch DeclarativeWebPushMessage.read(plaintext) {
        case nil: break
        case .success(let message)?: declarative = message
        case .failure(let problem)?: declarativeProblem = problem.message
        }
    }
}
