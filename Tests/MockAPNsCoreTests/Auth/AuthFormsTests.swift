import MockAPNsCore
import XCTest

/// The one parser of each form a credential comes in: base64 (url and standard), a compact
/// JWS, an `Authorization` field. Provider tokens, VAPID, the control API's token and the
/// redaction of records all read them through these.
final class AuthFormsTests: XCTestCase {
    // MARK: Base64URL

    func testBase64URLDecodesEachAlphabetAndPadding() {
        let rows: [(text: String, alphabet: Base64URL.Alphabet, padding: Bool, bytes: [UInt8]?)] = [
            ("", .url, false, []),
            ("AQID", .url, false, [1, 2, 3]),
            ("-_8", .url, false, [0xFB, 0xFF]),
            ("+/8", .standard, true, [0xFB, 0xFF]),
            // Each alphabet refuses the other's two characters.
            ("+/8", .url, true, nil),
            ("-_8", .standard, true, nil),
            // Padding only where asked for, and only as much as the length calls for.
            ("AQ==", .url, true, [1]),
            ("AQ==", .url, false, nil),
            ("AQ=", .url, true, nil),
            ("AQID===", .url, true, nil),
            // One leftover character is no byte.
            ("AQIDB", .url, false, nil),
            ("AQ.D", .url, false, nil),
        ]
        for row in rows {
            XCTAssertEqual(Base64URL.decode(row.text, alphabet: row.alphabet, allowingPadding: row.padding), row.bytes, row.text)
        }
        XCTAssertEqual(Base64URL.decode("AQID"), [1, 2, 3])
        XCTAssertNil(Base64URL.decode("AQ=="), "the default is unpadded base64url, as a JWS is written")
    }

    func testBase64URLRoundTripsEveryLength() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base64URL.encode(bytes)
            XCTAssertFalse(text.contains("="), "unpadded")
            XCTAssertTrue(Base64URL.isURLAlphabet(text))
            XCTAssertEqual(Base64URL.decode(text), bytes, "length \(length)")
        }
    }

    // MARK: CompactJWS

    func testCompactJWSTakesThreePartsApart() throws {
        let header = Base64URL.encode(Array(#"{"alg":"ES256","kid":"K"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"iss":"T","iat":1}"#.utf8))
        let token = "\(header).\(claims).AQID"
        let jws = try CompactJWS(Substring(token))
        XCTAssertEqual(jws.header, Substring(header))
        XCTAssertEqual(jws.claims, Substring(claims))
        XCTAssertEqual(jws.signingInput, Substring("\(header).\(claims)"))
        XCTAssertEqual(try jws.headerObject()["kid"], .string("K"))
        XCTAssertEqual(try jws.claimsObject()["iss"], .string("T"))
        XCTAssertEqual(try jws.signatureBytes(), [1, 2, 3])
    }

    func testCompactJWSSaysWhatIsWrong() {
        /// What is wrong with `token`, or with its `part` when one is named.
        func failure(_ token: String, reading part: CompactJWS.Part? = nil) -> CompactJWS.Failure? {
            do throws(CompactJWS.Failure) {
                let jws = try CompactJWS(Substring(token))
                switch part {
                case .header?: _ = try jws.headerObject()
                case .claims?: _ = try jws.claimsObject()
                case .signature?: _ = try jws.signatureBytes()
                case nil: break
                }
                return nil
            } catch {
                return error
            }
        }
        let object = Base64URL.encode(Array("{}".utf8))
        XCTAssertEqual(failure("abc"), .partCount(1))
        XCTAssertEqual(failure("a.b"), .partCount(2))
        XCTAssertEqual(failure("a.b.c.d.e"), .partCount(5))
        XCTAssertNil(failure("a.b.c"), "the shape alone is three parts")
        XCTAssertEqual(failure("a!.b.c", reading: .header), .notBase64URL(.header))
        XCTAssertEqual(failure("\(Base64URL.encode([0xFF, 0xFE])).b.c", reading: .header), .notUTF8(.header))
        XCTAssertEqual(failure("\(Base64URL.encode(Array("[1]".utf8))).b.c", reading: .header), .notObject(.header, kind: "an array"))
        XCTAssertEqual(failure("\(object).\(object).a+b", reading: .signature), .notBase64URL(.signature))
        XCTAssertNil(failure("\(object).\(object).AQID", reading: .claims))
        guard case .notJSON(.claims, let error)? = failure("\(object).\(Base64URL.encode(Array("{".utf8))).c", reading: .claims) else {
            return XCTFail("claims that are no JSON")
        }
        XCTAssertFalse(error.message.isEmpty)
    }

    func testAJOSEHeaderIsRecognisedByItsShape() {
        let rows: [(text: String, isHeader: Bool)] = [
            (Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8)), true),
            (Base64URL.encode(Array(#"  { "alg": "ES256" }  "#.utf8)), true),
            (Base64URL.encode(Array("{}".utf8)), true),
            (Base64URL.encode(Array("[]".utf8)), false),
            (Base64URL.encode(Array(#"{"alg""#.utf8)), false),
            ("com", false),
            ("example", false),
            ("", false),
        ]
        for row in rows {
            XCTAssertEqual(CompactJWS.isHeaderShaped(Array(row.text.utf8)), row.isHeader, row.text)
        }
    }

    // MARK: AuthorizationField

    func testAuthorizationFieldTakesSchemeAndCredentialsApart() throws {
        let rows: [(value: String, scheme: String, credentials: String, blank: Bool)] = [
            ("bearer abc", "bearer", "abc", false),
            ("  Bearer \t abc \t", "Bearer", "abc", false),
            ("bearer", "bearer", "", false),
            ("bearer a b", "bearer", "a b", true),
            ("vapid t=x, k=y", "vapid", "t=x, k=y", true),
        ]
        for row in rows {
            let field = try XCTUnwrap(AuthorizationField(Substring(row.value)), row.value)
            XCTAssertEqual(field.scheme, Substring(row.scheme), row.value)
            XCTAssertEqual(field.credentials, Substring(row.credentials), row.value)
            XCTAssertEqual(field.credentialsHaveBlank, row.blank, row.value)
        }
        XCTAssertNil(AuthorizationField(""))
        XCTAssertNil(AuthorizationField(" \t "))
    }

    func testSchemesAreComparedInASCIICaseOnly() throws {
        XCTAssertTrue(try XCTUnwrap(AuthorizationField("BeArEr x")).hasScheme("bearer"))
        XCTAssertFalse(try XCTUnwrap(AuthorizationField("bearerx y")).hasScheme("bearer"))
        XCTAssertFalse(try XCTUnwrap(AuthorizationField("bearer")).hasScheme("vapid"))
        // The KELVIN SIGN lowercases to k: a Unicode comparison would take it for "k".
        XCTAssertFalse(try XCTUnwrap(AuthorizationField("\u{212A}ey x")).hasScheme("key"))
    }

    func testParametersAreNamedAndTrimmed() throws {
        let field = try XCTUnwrap(AuthorizationField("vapid t=eyJ.x.y , K = BKey,junk, t=second"))
        XCTAssertEqual(field.parameters.map(\.name), ["t", "k", "t"])
        XCTAssertEqual(field.parameters.map { String($0.value) }, ["eyJ.x.y", "BKey", "second"])
    }
}
