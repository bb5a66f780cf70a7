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
            // A bearer credential that is no JWS is a secret of unknown shape (a bare
            // signature, an opaque token): hidden under both settings.
            ("bearer opaque-credential", "bearer <redacted>", "bearer <redacted>"),
            ("bearer a.b", "bearer <redacted>", "bearer <redacted>"),
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

    /// A token is recognised by its shape wherever it is sent, and nothing that would make one
    /// whole again is kept: a bare signature, the tail of a signature split by a blank.
    func testSignaturesAndTheirPiecesAreNeverKept() {
        let signature = String(repeating: "Ab9-_x", count: 14) + "Qw"
        XCTAssertEqual(signature.count, 86, "an ES256 signature is 64 bytes: 86 base64url characters")
        let (head, tail) = (jwt.prefix(jwt.count - 6), jwt.suffix(6))
        let rows: [(field: String, value: String, recorded: String)] = [
            // A JWT in a field where none belongs (answered 400) is kept as in `authorization`.
            ("apns-collapse-id", jwt, withoutSignature),
            ("apns-id", jwt, withoutSignature),
            // The signature alone, where the token belongs and anywhere else.
            ("authorization", "bearer \(signature)", "bearer <redacted>"),
            ("apns-collapse-id", signature, "<signature removed>"),
            ("x-note", "sig=\(signature);", "sig=<signature removed>;"),
            // A signature split by a blank: its head is a JWS and goes, and so does its tail.
            ("authorization", "bearer \(head) \(tail)", "bearer \(withoutSignature) <redacted>"),
            ("authorization", "bearer \(jwt) \(jwt)", "bearer \(withoutSignature) <redacted>"),
            // VAPID's parameters are one credential: the key is public and stays.
            ("authorization", "vapid t=\(jwt), k=BPublicKey", "vapid t=\(withoutSignature), k=BPublicKey"),
            // Values of no token's shape stay as sent.
            ("apns-id", "5E8D1C1A-1B2C-4D5E-8F90-A1B2C3D4E5F6", "5E8D1C1A-1B2C-4D5E-8F90-A1B2C3D4E5F6"),
            ("apns-topic", "com.example.app", "com.example.app"),
            (":path", "/3/device/" + String(repeating: "a1", count: 32), "/3/device/" + String(repeating: "a1", count: 32)),
        ]
        for row in rows {
            let recorded = ProviderTokenRecording.withoutSignature.apply(field: row.field, value: row.value)
            XCTAssertEqual(recorded, row.recorded, "\(row.field): \(row.value)")
            XCTAssertFalse(recorded.contains(signature), "\(row.field): \(row.value)")
            XCTAssertFalse(recorded.contains("ZHVtbXktc2lnbmF0dXJl"), "\(row.field): \(row.value)")
            // Recording twice changes nothing: a recorded value passed on is recorded as it is.
            XCTAssertEqual(ProviderTokenRecording.withoutSignature.apply(field: row.field, value: recorded), recorded, row.value)
            XCTAssertEqual(ProviderTokenRecording.withoutSignature.apply(recorded), recorded, row.value)
        }
    }

    func testTheDefaultIsWithoutSignature() {
        XCTAssertEqual(JournalOptions().providerTokens, .withoutSignature)
    }
}
