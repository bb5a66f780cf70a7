// The fleet's parts that need no PostgreSQL: the --state URL, what the control API logs for
// the other replicas, and what it leaves to its own change kinds. The fleet itself (three
// replicas, HAProxy, PostgreSQL killed mid-run) is Tests/Interop/test_fleet.py.

import Hummingbird
@testable import MockAPNs
import MockAPNsBroadcast
import MockAPNsControl
import MockAPNsCore
import MockAPNsFleet
import XCTest

final class FleetLocationTests: XCTestCase {
    /// URLs as libpq takes them, each with what it names.
    func testEachURLNamesItsServerUserAndDatabase() throws {
        let cases: [(url: String, host: String, port: Int, user: String, password: String?, database: String, ssl: FleetLocation.SSLMode)] = [
            ("postgresql://mockapns@127.0.0.1:55432/mockapns", "127.0.0.1", 55432, "mockapns", nil, "mockapns", .disable),
            ("postgres://db.internal/fleet", "db.internal", 5432, "postgres", nil, "fleet", .disable),
            ("postgresql://app:s%40cret@db:6000/apns?sslmode=require", "db", 6000, "app", "s@cret", "apns", .require),
            ("postgresql://app@[::1]:5433/apns?sslmode=prefer", "::1", 5433, "app", nil, "apns", .prefer),
        ]
        for entry in cases {
            let location = try FleetLocation(url: entry.url)
            XCTAssertEqual(location.host, entry.host, entry.url)
            XCTAssertEqual(location.port, entry.port, entry.url)
            XCTAssertEqual(location.user, entry.user, entry.url)
            XCTAssertEqual(location.password, entry.password, entry.url)
            XCTAssertEqual(location.database, entry.database, entry.url)
            XCTAssertEqual(location.sslMode, entry.ssl, entry.url)
        }
    }

    /// Each mistake is named, and no message repeats a password.
    func testAMistakenURLIsRefusedWithWhatIsWrongAndNoPassword() {
        let cases: [(url: String, says: String)] = [
            ("mysql://app:hunter2@db/apns", "starts with postgresql://"),
            ("postgresql://app@db", "names no database"),
            ("postgresql://app@db/", "names no database"),
            ("postgresql://app@db:0/apns", "port must be a number from 1 to 65535"),
            ("postgresql://app@db:99999/apns", "port must be a number from 1 to 65535"),
            ("postgresql://app@:5432/apns", "names no host"),
            ("postgresql://app@db/apns?sslmode=verify-full", "sslmode is one of disable, prefer, require"),
            ("postgresql://app@db/apns?application_name=x", "only query parameter is sslmode"),
        ]
        for entry in cases {
            XCTAssertThrowsError(try FleetLocation(url: entry.url), entry.url) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains(entry.says), "\(entry.url): \(text)")
                XCTAssertFalse(text.contains("hunter2"), "\(entry.url): \(text)")
            }
        }
    }

    /// What health, logs and pages show of the URL holds no password.
    func testTheDescriptionLeavesThePasswordOut() throws {
        let location = try FleetLocation(url: "postgresql://app:hunter2@db.internal:6000/apns")
        XCTAssertEqual(location.description, "postgresql://app@db.internal:6000/apns")
    }

    /// The control calls each replica replays, and those logged their own way: sessions (random
    /// credentials), channels (random ids, and made on either API), making a web push
    /// subscription (random keys) and the legacy gateway's shutdown (this replica's own
    /// connections).
    func testOnlyCallsWhoseEffectIsTheCallItselfAreReplayed() {
        let cases: [(method: HTTPRequest.Method, path: String, replayed: Bool)] = [
            (.post, "/v1/registry/abc/unregister", true),
            (.put, "/v1/scenario", true),
            (.post, "/v1/scenario/rules", true),
            (.delete, "/v1/journal", true),
            (.post, "/v1/reset", true),
            (.put, "/v1/clock", true),
            (.post, "/v1/feedback", true),
            (.post, "/v1/sessions", false),
            (.delete, "/v1/sessions/0123", false),
            (.post, "/v1/channels", false),
            (.delete, "/v1/channels/abc", false),
            (.post, "/v1/web-push/subscriptions", false),
            (.post, "/v1/web-push/subscriptions/Qabc/expire", true),
            (.delete, "/v1/web-push/subscriptions/Qabc", true),
            (.post, "/v1/legacy/shutdown", false),
            (.put, "/v1/registry/abc/rate-limit", false),
            (.delete, "/v1/registry/abc/rate-limit", true),
        ]
        for entry in cases {
            XCTAssertEqual(!ControlReplicationMiddleware.isLoggedElsewhere(entry.method, entry.path), entry.replayed, "\(entry.method) \(entry.path)")
        }
    }

    /// A channel travels the log with the id, bundle, environment, policy and time it was
    /// made with; a body that is not one is refused rather than half read.
    func testAChannelCrossesTheLogWhole() {
        let channel = BroadcastChannel(
            id: "dHN0+/abcdEFGH==", bundleID: "com.example.app", environment: .production,
            storagePolicy: .mostRecentMessageStored, createdAtMilliseconds: 1_767_225_600_123
        )
        XCTAssertEqual(FleetChannelJSON.decode(FleetChannelJSON.encode(channel)), channel)
        XCTAssertNil(FleetChannelJSON.decode(#"{"id":"x","bundleId":"b","environment":"moon","messageStoragePolicy":0,"createdAt":1}"#))
        XCTAssertNil(FleetChannelJSON.decode(#"{"id":"x","bundleId":"b","environment":"sandbox","messageStoragePolicy":2,"createdAt":1}"#))
        XCTAssertNil(FleetChannelJSON.decode("not json"))
    }

    /// The fleet's series carry the replica as a label, escaped as the text format wants.
    func testTheFleetSeriesNameTheReplicaEscaped() {
        let health = FleetHealth(
            replica: #"a"b\c"#, run: "a-1", reachable: false, lastError: "gone", changesPending: 3,
            appliedThrough: 9, recordsShipped: 40, fileBytesShipped: 4096
        )
        let text = MockAPNsServer.fleetMetrics(health)
        XCTAssertTrue(text.contains(#"mockapns_fleet_up{replica="a\"b\\c"} 0"#), text)
        XCTAssertTrue(text.contains(#"mockapns_fleet_changes_pending{replica="a\"b\\c"} 3"#), text)
        XCTAssertTrue(text.contains("# TYPE mockapns_fleet_records_shipped_total counter"), text)
    }
}
