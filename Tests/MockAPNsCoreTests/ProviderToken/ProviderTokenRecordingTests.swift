import MockAPNsCore
import MockAPNsJournal
import XCTest

/// How provider tokens appear in what is recorded and printed: by default a JWT keeps its
/// header and claims and loses its signature, so a journal cannot hand out a token to replay.
final class ProviderTokenRecordingTests: XCTestCase {
    private let jwt = "eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyMzRERUYifQ.eyJpc3MiOiJERUYxMjNHSElKIiwiaWF0IjoxNzAwMDAwMDAwfQ.ZHVtbXktc2lnbmF0dXJl"
    private var withoutSignature: String {
        "eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyMzRERUYifQ.eyJpc3MiOiJERUYxMjNHSElKIiwiaWF0IjoxNzAwMDAwMDAwfQ.<signature removed>"
    }

    func testEachSettingOnEachShapeOfText() {
        let rows: [(text: String, withoutSignature: String, redacted: String)] = [
            ("bearer \(jwt)", "bearer \(withoutSignature)", "bearer <redacted>"),
            ("Bearer \(jwt)", "Bearer \(withoutSignature)", "Bearer <redacted>"),
            // An error message quoting a header value.
            ("invalid header value: [bearer \(jwt)]", "invalid header value: [bearer \(withoutSignature)]", "invalid header value: [bearer <redacted>]"),
            // A bare JWT anywhere in text, twice.
            ("\(jwt) and \(jwt)", "\(withoutSignature) and \(withoutSignature)", "<redacted> and <redacted>"),
            // Not three parts: not a token that could be replayed, so kept; redaction hides it anyway.
            ("bearer opaque-credential", "bearer opaque-credential", "bearer <redacted>"),
            ("bearer a.b", "bearer a.b", "bearer <redacted>"),
            // Device tokens are hex and stay readable.
            ("token a1b2c3d4a1b2c3d4", "token a1b2c3d4a1b2c3d4", "token a1b2c3d4a1b2c3d4"),
        ]
        for row in rows {
            XCTAssertEqual(ProviderTokenRecording.withoutSignature.apply(row.text), row.withoutSignature, row.text)
            XCTAssertEqual(ProviderTokenRecording.redacted.apply(row.text), row.redacted, row.text)
            XCTAssertEqual(ProviderTokenRecording.whole.apply(row.text), row.text, row.text)
        }
    }

    /// Tokens are found by their structure (three base64url parts, the first a JSON object),
    /// whatever precedes them and however their header is spelt.
    func testTokensAreFoundByStructureNotByPrefix() {
        // `{ "alg": "ES256", "kid": "ABC" }`: a header with spaces encodes to `eyAi…`.
        let spaced = "eyAiYWxnIjogIkVTMjU2IiwgImtpZCI6ICJBQkMiIH0.eyJpc3MiOiJUIiwiaWF0IjoxfQ.c2lnbmF0dXJlLXNwYWNlZA"
        let spacedKept = "eyAiYWxnIjogIkVTMjU2IiwgImtpZCI6ICJBQkMiIH0.eyJpc3MiOiJUIiwiaWF0IjoxfQ.<signature removed>"
        let rows: [(text: String, withoutSignature: String, redacted: String)] = [
            ("bearer  \(jwt)", "bearer  \(withoutSignature)", "bearer  <redacted>"),
            ("bearer\t\(jwt)", "bearer\t\(withoutSignature)", "bearer\t<redacted>"),
            ("Token \(jwt)", "Token \(withoutSignature)", "Token <redacted>"),
            (jwt, withoutSignature, "<redacted>"),
            ("bearer \(spaced)", "bearer \(spacedKept)", "bearer <redacted>"),
            (spaced, spacedKept, "<redacted>"),
            ("token=\(spaced); next", "token=\(spacedKept); next", "token=<redacted>; next"),
            // Dotted words around a token stay; the token inside them does not.
            ("key.\(jwt).tail", "key.\(withoutSignature).tail", "key.<redacted>.tail"),
            // Dotted words that are no JWS: a topic, a version, a host.
            ("com.example.app", "com.example.app", "com.example.app"),
            ("version 1.2.3 of api.push.apple.com", "version 1.2.3 of api.push.apple.com", "version 1.2.3 of api.push.apple.com"),
        ]
        for row in rows {
            XCTAssertEqual(ProviderTokenRecording.withoutSignature.apply(row.text), row.withoutSignature, row.text)
            XCTAssertEqual(ProviderTokenRecording.redacted.apply(row.text), row.redacted, row.text)
        }
    }

    func testTheSignatureIsGoneButTheHeaderAndClaimsAreKeptAsSent() throws {
        let kept = ProviderTokenRecording.withoutSignature.apply(jwt)
        XCTAssertFalse(kept.contains("ZHVtbXktc2lnbmF0dXJl"))
        let sent = jwt.split(separator: ".")
        let parts = kept.split(separator: ".")
        XCTAssertEqual(parts.count, 3)
        XCTAssertEqual(Array(parts.prefix(2)), Array(sent.prefix(2)), "a reader still finds the key id and the team")
        XCTAssertEqual(parts[2], "<signature removed>", "the record says what was removed")
    }

    func testTheDefaultIsWithoutSignature() {
        XCTAssertEqual(JournalOptions().providerTokens, .withoutSignature)
    }
}
