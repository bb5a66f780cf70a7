import MockAPNsWire
import MockAPNsCore
import XCTest
import MockAPNsDelivery
@testable import MockAPNsJournal

/// Apple's storage and delivery rules, one table per rule: each case is a script of pushes,
/// device changes and clock moves, and the steps the model must take, in order.
final class DeliveryModelTests: XCTestCase {
    private static let token = "a1b2c3d4"
    private static let app = "com.example.app"
    private static let day: Int64 = 86_400_000

    /// One thing that happens to the model.
    private enum Input {
        /// A push with the given journal sequence, at `at` milliseconds.
        case push(UInt64, at: Int64, topic: String = DeliveryModelTests.app, priority: Int? = nil, expiration: Int64? = nil,
                  collapseID: String? = nil, pushType: String? = nil, token: String = DeliveryModelTests.token)
        case offline(at: Int64, token: String = DeliveryModelTests.token)
        case online(at: Int64, token: String = DeliveryModelTests.token)
        case advance(to: Int64)
    }

    /// One step expected: what, to which notification, why, when, and (for replacements) by which.
    private struct Expected: Equatable, CustomStringConvertible {
        var step: DeliveryStep
        var notification: UInt64
        var cause: DeliveryCause? = nil
        var at: Int64
        var until: Int64? = nil
        var replacedBy: UInt64? = nil

        var description: String {
            "\(step.rawValue) #\(notification)" + (cause.map { " (\($0.rawValue))" } ?? "") + " at \(at)"
                + (until.map { " until \($0)" } ?? "") + (replacedBy.map { " by #\($0)" } ?? "")
        }
    }

    private func run(_ inputs: [Input], options: DeliveryOptions = .default, file: StaticString = #filePath, line: UInt = #line) -> ([Expected], DeliveryModel) {
        var model = DeliveryModel(options: options)
        var changes: [DeliveryModel.Change] = []
        for input in inputs {
            switch input {
            case .push(let sequence, let at, let topic, let priority, let expiration, let collapseID, let pushType, let token):
                changes += model.receive(DeliveryNotification(
                    sequence: sequence, deviceToken: token, topic: topic, pushType: pushType, priority: priority,
                    expiration: expiration, collapseID: collapseID, apnsID: .text("ID-\(sequence)"), receivedAtMilliseconds: at
                ))
            case .offline(let at, let token):
                changes += model.setOnline(token, false, at: at)
            case .online(let at, let token):
                changes += model.setOnline(token, true, at: at)
            case .advance(let time):
                changes += model.advance(to: time)
            }
        }
        for change in changes {
            XCTAssertEqual(change.record.notificationSequence, change.notification.sequence, file: file, line: line)
            XCTAssertEqual(change.notification.apnsID?.text, "ID-\(change.notification.sequence)", file: file, line: line)
        }
        let steps = changes.map {
            Expected(step: $0.record.step, notification: $0.notification.sequence, cause: $0.record.cause, at: $0.record.atMilliseconds,
                     until: $0.record.untilMilliseconds, replacedBy: $0.record.replacedBy)
        }
        return (steps, model)
    }

    private func check(_ name: String, _ inputs: [Input], options: DeliveryOptions = .default, expect: [Expected],
                       file: StaticString = #filePath, line: UInt = #line) {
        let (steps, _) = run(inputs, options: options, file: file, line: line)
        XCTAssertEqual(steps, expect, name, file: file, line: line)
    }

    // MARK: Online devices

    func testAnOnlineDeviceGetsEachNotificationAtOnce() {
        check("three pushes, online", [
            .push(1, at: 1000), .push(2, at: 2000, expiration: 0), .push(3, at: 3000, priority: 5),
        ], expect: [
            Expected(step: .delivered, notification: 1, at: 1000),
            Expected(step: .delivered, notification: 2, at: 2000),
            // Without a batch delay, power-aware notifications go out at once too.
            Expected(step: .delivered, notification: 3, at: 3000),
        ])
    }

    // MARK: Offline storage: one per app, the newest

    func testOfflineThreePushesThenOnlineDeliversOnlyTheLast() {
        check("offline, three pushes, online", [
            .offline(at: 0), .push(1, at: 1000), .push(2, at: 2000), .push(3, at: 3000), .online(at: 4000),
        ], expect: [
            Expected(step: .stored, notification: 1, cause: .deviceOffline, at: 1000, until: 1000 + 30 * Self.day),
            Expected(step: .superseded, notification: 1, at: 2000, replacedBy: 2),
            Expected(step: .stored, notification: 2, cause: .deviceOffline, at: 2000, until: 2000 + 30 * Self.day),
            Expected(step: .superseded, notification: 2, at: 3000, replacedBy: 3),
            Expected(step: .stored, notification: 3, cause: .deviceOffline, at: 3000, until: 3000 + 30 * Self.day),
            Expected(step: .delivered, notification: 3, cause: .fromStorage, at: 4000),
        ])
    }

    func testEachAppKeepsItsOwnStoredNotification() {
        check("two apps, and a VoIP topic of the first", [
            .offline(at: 0),
            .push(1, at: 10, topic: "com.example.app"),
            .push(2, at: 20, topic: "com.other.app"),
            // Apple stores one notification per bundle id: the .voip topic is the same app.
            .push(3, at: 30, topic: "com.example.app.voip", pushType: "voip"),
            .online(at: 40),
        ], expect: [
            Expected(step: .stored, notification: 1, cause: .deviceOffline, at: 10, until: 10 + 30 * Self.day),
            Expected(step: .stored, notification: 2, cause: .deviceOffline, at: 20, until: 20 + 30 * Self.day),
            Expected(step: .superseded, notification: 1, at: 30, replacedBy: 3),
            Expected(step: .stored, notification: 3, cause: .deviceOffline, at: 30, until: 30 + 30 * Self.day),
            Expected(step: .delivered, notification: 2, cause: .fromStorage, at: 40),
            Expected(step: .delivered, notification: 3, cause: .fromStorage, at: 40),
        ])
    }

    func testEachDeviceKeepsItsOwnStorage() {
        check("two devices offline", [
            .offline(at: 0, token: "aa"), .offline(at: 0, token: "bb"),
            .push(1, at: 10, token: "aa"), .push(2, at: 20, token: "bb"),
            .online(at: 30, token: "bb"),
        ], expect: [
            Expected(step: .stored, notification: 1, cause: .deviceOffline, at: 10, until: 10 + 30 * Self.day),
            Expected(step: .stored, notification: 2, cause: .deviceOffline, at: 20, until: 20 + 30 * Self.day),
            Expected(step: .delivered, notification: 2, cause: .fromStorage, at: 30),
        ])
    }

    func testTokensAreComparedWithoutLetterCase() {
        check("offline in upper case, pushed in lower case", [
            .offline(at: 0, token: "ABCDEF"), .push(1, at: 10, token: "abcdef"), .online(at: 20, token: "AbCdEf"),
        ], expect: [
            Expected(step: .stored, notification: 1, cause: .deviceOffline, at: 10, until: 10 + 30 * Self.day),
            Expected(step: .delivered, notification: 1, cause: .fromStorage, at: 20),
        ])
    }

    // MARK: apns-expiration

    func testExpirationZeroMeansDeliverNowOrDiscard() {
        check("offline, expiration 0", [
            .offline(at: 0), .push(1, at: 1000, expiration: 0), .online(at: 2000),
        ], expect: [
            Expected(step: .discarded, notification: 1, cause: .expirationZero, at: 1000),
        ])
        check("online, expiration 0", [.push(1, at: 1000, expiration: 0)], expect: [
            Expected(step: .delivered, notification: 1, at: 1000),
        ])
        check("expiration 0 while offline does not replace what is stored", [
            .offline(at: 0), .push(1, at: 1000), .push(2, at: 2000, expiration: 0), .online(at: 3000),
        ], expect: [
            Expected(step: .stored, notification: 1, cause: .deviceOffline, at: 1000, until: 1000 + 30 * Self.day),
            Expected(step: .discarded, notification: 2, cause: .expirationZero, at: 2000),
            Expected(step: .delivered, notification: 1, cause: .fromStorage, at: 3000),
        ])
    }

    func testAStoredNotificationExpiresAtItsExpiration() {
        // apns-expiration is in seconds; the clock in milliseconds.
        check("expiry while stored", [
            .offline(at: 0), .push(1, at: 1000, expiration: 60), .advance(to: 59_999), .advance(to: 75_000), .online(at: 80_000),
        ], expect: [
            Expected(step: .stored, notification: 1, cause: .deviceOffline, at: 1000, until: 60_000),
            // At its expiration, not when the clock was looked at.
            Expected(step: .expired, notification: 1, at: 60_000),
        ])
        check("back online just before the expiration", [
            .offline(at: 0), .push(1, at: 1000, expiration: 60), .online(at: 59_999), .advance(to: 100_000),
        ], expect: [
            Expected(step: .stored, notification: 1, cause: .deviceOffline, at: 1000, until: 60_000),
            Expected(step: .delivered, notification: 1, cause: .fromStorage, at: 59_999),
        ])
        check("coming online at the expiration is too late", [
            .offline(at: 0), .push(1, at: 1000, expiration: 60), .online(at: 60_000),
        ], expect: [
            Expected(step: .stored, notification: 1, cause: .deviceOffline, at: 1000, until: 60_000),
            Expected(step: .expired, notification: 1, at: 60_000),
        ])
    }

    func testStorageLastsThirtyDaysAtMost() {
        check("no expiration: the storage limit", [
            .offline(at: 0), .push(1, at: 0), .advance(to: 30 * Self.day),
        ], expect: [
            Expected(step: .stored, notification: 1, cause: .deviceOffline, at: 0, until: 30 * Self.day),
            Expected(step: .expired, notification: 1, at: 30 * Self.day),
        ])
        check("an expiration past the limit, and one far past anything", [
            .offline(at: 0), .push(1, at: 0, expiration: 365 * 86_400),
            .push(2, at: 0, topic: "com.other.app", expiration: Int64.max), .advance(to: 30 * Self.day),
        ], expect: [
            Expected(step: .stored, notification: 1, cause: .deviceOffline, at: 0, until: 30 * Self.day),
            Expected(step: .stored, notification: 2, cause: .deviceOffline, at: 0, until: 30 * Self.day),
            Expected(step: .expired, notification: 1, at: 30 * Self.day),
            Expected(step: .expired, notification: 2, at: 30 * Self.day),
        ])
        check("a shorter limit", [.offline(at: 0), .push(1, at: 0), .advance(to: 5000)],
              options: DeliveryOptions(maximumStorageMilliseconds: 5000), expect: [
            Expected(step: .stored, notification: 1, cause: .deviceOffline, at: 0, until: 5000),
            Expected(step: .expired, notification: 1, at: 5000),
        ])
    }

    func testAnExpirationAlreadyPast() {
        check("offline: expired at once", [.offline(at: 0), .push(1, at: 10_000, expiration: 5)], expect: [
            Expected(step: .expired, notification: 1, at: 10_000),
        ])
        check("online: one attempt, delivered", [.push(1, at: 10_000, expiration: 5)], expect: [
            Expected(step: .delivered, notification: 1, at: 10_000),
        ])
    }

    // MARK: apns-collapse-id

    func testCollapseIDs() {
        check("offline: same collapse id collapses, another is superseded", [
            .offline(at: 0),
            .push(1, at: 10, collapseID: "score"),
            .push(2, at: 20, collapseID: "score"),
            .push(3, at: 30, collapseID: "news"),
            .push(4, at: 40),
            .online(at: 50),
        ], expect: [
            Expected(step: .stored, notification: 1, cause: .deviceOffline, at: 10, until: 10 + 30 * Self.day),
            Expected(step: .collapsed, notification: 1, at: 20, replacedBy: 2),
            Expected(step: .stored, notification: 2, cause: .deviceOffline, at: 20, until: 20 + 30 * Self.day),
            Expected(step: .superseded, notification: 2, at: 30, replacedBy: 3),
            Expected(step: .stored, notification: 3, cause: .deviceOffline, at: 30, until: 30 + 30 * Self.day),
            Expected(step: .superseded, notification: 3, at: 40, replacedBy: 4),
            Expected(step: .stored, notification: 4, cause: .deviceOffline, at: 40, until: 40 + 30 * Self.day),
            Expected(step: .delivered, notification: 4, cause: .fromStorage, at: 50),
        ])
        check("held for a batch: the same collapse id replaces, another app's does not", [
            .push(1, at: 0, priority: 5, collapseID: "score"),
            .push(2, at: 100, topic: "com.other.app", priority: 5, collapseID: "score"),
            .push(3, at: 200, priority: 5, collapseID: "score"),
            .advance(to: 1000),
        ], options: DeliveryOptions(batchDelayMilliseconds: 1000), expect: [
            Expected(step: .stored, notification: 1, cause: .powerConsiderations, at: 0, until: 1000),
            Expected(step: .stored, notification: 2, cause: .powerConsiderations, at: 100, until: 1000),
            Expected(step: .collapsed, notification: 1, at: 200, replacedBy: 3),
            Expected(step: .stored, notification: 3, cause: .powerConsiderations, at: 200, until: 1000),
            Expected(step: .delivered, notification: 2, cause: .fromStorage, at: 1000),
            Expected(step: .delivered, notification: 3, cause: .fromStorage, at: 1000),
        ])
    }

    // MARK: Priority 5 and 1, and background pushes: the batch delay

    func testPowerAwareNotificationsGoOutTogetherAfterTheBatchDelay() {
        let options = DeliveryOptions(batchDelayMilliseconds: 1000)
        check("a batch, and the next one", [
            .push(1, at: 0, priority: 10),
            .push(2, at: 0, priority: 5),
            .push(3, at: 500, priority: 1),
            .push(4, at: 600, pushType: "background"),
            .advance(to: 999),
            .advance(to: 1000),
            .push(5, at: 1500, priority: 5),
            .advance(to: 2500),
        ], options: options, expect: [
            Expected(step: .delivered, notification: 1, at: 0),
            Expected(step: .stored, notification: 2, cause: .powerConsiderations, at: 0, until: 1000),
            Expected(step: .stored, notification: 3, cause: .powerConsiderations, at: 500, until: 1000),
            Expected(step: .stored, notification: 4, cause: .powerConsiderations, at: 600, until: 1000),
            Expected(step: .delivered, notification: 2, cause: .fromStorage, at: 1000),
            Expected(step: .delivered, notification: 3, cause: .fromStorage, at: 1000),
            Expected(step: .delivered, notification: 4, cause: .fromStorage, at: 1000),
            Expected(step: .stored, notification: 5, cause: .powerConsiderations, at: 1500, until: 2500),
            Expected(step: .delivered, notification: 5, cause: .fromStorage, at: 2500),
        ])
        check("expiration 0 is one attempt: never held", [.push(1, at: 0, priority: 5, expiration: 0)], options: options, expect: [
            Expected(step: .delivered, notification: 1, at: 0),
        ])
        check("a push after the release time passes the release first", [
            .push(1, at: 0, priority: 5), .push(2, at: 1200),
        ], options: options, expect: [
            Expected(step: .stored, notification: 1, cause: .powerConsiderations, at: 0, until: 1000),
            Expected(step: .delivered, notification: 1, cause: .fromStorage, at: 1000),
            Expected(step: .delivered, notification: 2, at: 1200),
        ])
    }

    func testAHeldNotificationMeetsTheDeviceAsItIsAtTheRelease() {
        let options = DeliveryOptions(batchDelayMilliseconds: 1000)
        check("offline before the release: stored, one per app", [
            .push(1, at: 0, priority: 5), .push(2, at: 100, priority: 5), .offline(at: 500), .advance(to: 1000), .online(at: 2000),
        ], options: options, expect: [
            Expected(step: .stored, notification: 1, cause: .powerConsiderations, at: 0, until: 1000),
            Expected(step: .stored, notification: 2, cause: .powerConsiderations, at: 100, until: 1000),
            Expected(step: .stored, notification: 1, cause: .deviceOffline, at: 1000, until: 30 * Self.day),
            Expected(step: .superseded, notification: 1, at: 1000, replacedBy: 2),
            Expected(step: .stored, notification: 2, cause: .deviceOffline, at: 1000, until: 100 + 30 * Self.day),
            Expected(step: .delivered, notification: 2, cause: .fromStorage, at: 2000),
        ])
        check("expiring before the release", [
            .push(1, at: 0, priority: 5, expiration: 5), .push(2, at: 0, topic: "com.other.app", priority: 5), .advance(to: 10_000),
        ], options: DeliveryOptions(batchDelayMilliseconds: 10_000), expect: [
            Expected(step: .stored, notification: 1, cause: .powerConsiderations, at: 0, until: 10_000),
            Expected(step: .stored, notification: 2, cause: .powerConsiderations, at: 0, until: 10_000),
            Expected(step: .expired, notification: 1, at: 5000),
            Expected(step: .delivered, notification: 2, cause: .fromStorage, at: 10_000),
        ])
    }

    // MARK: What the model holds

    func testDeadlinesAcrossDevicesComeOutInTimeOrder() {
        check("two devices, deadlines interleaved", [
            .offline(at: 0, token: "aa"), .offline(at: 0, token: "bb"),
            .push(1, at: 0, expiration: 30, token: "bb"), .push(2, at: 0, expiration: 20, token: "aa"),
            .push(3, at: 0, topic: "com.other.app", expiration: 10, token: "bb"),
            .advance(to: 40_000),
        ], expect: [
            Expected(step: .stored, notification: 1, cause: .deviceOffline, at: 0, until: 30_000),
            Expected(step: .stored, notification: 2, cause: .deviceOffline, at: 0, until: 20_000),
            Expected(step: .stored, notification: 3, cause: .deviceOffline, at: 0, until: 10_000),
            Expected(step: .expired, notification: 3, at: 10_000),
            Expected(step: .expired, notification: 2, at: 20_000),
            Expected(step: .expired, notification: 1, at: 30_000),
        ])
    }

    func testTheModelHoldsOnlyDevicesThatDifferFromTheDefault() {
        let (_, model) = run([
            .offline(at: 0, token: "aa"), .push(1, at: 10, token: "aa"), .push(2, at: 20, token: "bb"),
            .offline(at: 30, token: "cc"), .online(at: 40, token: "cc"),
        ])
        XCTAssertEqual(model.devicesHeld.map(\.deviceToken), ["aa"])
        let device = model.state(of: "AA")
        XCTAssertFalse(device.online)
        XCTAssertEqual(device.changedAtMilliseconds, 0)
        XCTAssertEqual(device.stored.map(\.notification.sequence), [1])
        XCTAssertEqual(device.stored.first?.expiresAtMilliseconds, 10 + 30 * Self.day)
        XCTAssertEqual(model.nextDeadline, 10 + 30 * Self.day)
        let untouched = model.state(of: "dd")
        XCTAssertTrue(untouched.online)
        XCTAssertTrue(untouched.stored.isEmpty && untouched.held.isEmpty)
        XCTAssertNil(untouched.changedAtMilliseconds)
    }

    func testHeldNotificationsAndTheirReleaseAreVisible() {
        let (_, model) = run([.push(1, at: 0, priority: 5), .push(2, at: 10, priority: 5)],
                             options: DeliveryOptions(batchDelayMilliseconds: 1000))
        let device = model.state(of: Self.token)
        XCTAssertTrue(device.online)
        XCTAssertEqual(device.held.map(\.notification.sequence), [1, 2])
        XCTAssertEqual(device.batchReleaseAtMilliseconds, 1000)
        XCTAssertEqual(model.nextDeadline, 1000)
    }

    func testRemovingAllPutsEveryDeviceBackOnline() {
        var (_, model) = run([.offline(at: 0), .push(1, at: 10)])
        XCTAssertEqual(model.removeAll(), 1)
        XCTAssertTrue(model.devicesHeld.isEmpty)
        XCTAssertNil(model.nextDeadline)
        XCTAssertEqual(model.receive(DeliveryNotification(sequence: 2, deviceToken: Self.token, receivedAtMilliseconds: 20)).map(\.record.step),
                       [.delivered])
    }

    func testTimesAtTheEdgeDoNotOverflow() {
        let late = Int64.max - 10
        check("received at the end of time", [
            .offline(at: late), .push(1, at: late), .push(2, at: late, topic: "com.other.app", priority: 5),
        ], options: DeliveryOptions(batchDelayMilliseconds: 1000), expect: [
            Expected(step: .stored, notification: 1, cause: .deviceOffline, at: late, until: Int64.max),
            Expected(step: .stored, notification: 2, cause: .deviceOffline, at: late, until: Int64.max),
        ])
        check("held at the end of time", [.push(1, at: late, priority: 5)], options: DeliveryOptions(batchDelayMilliseconds: 1000), expect: [
            Expected(step: .stored, notification: 1, cause: .powerConsiderations, at: late, until: Int64.max),
        ])
    }

    func testPowerAwareAndBundleFollowApple() {
        func notification(priority: Int? = nil, pushType: String? = nil, topic: String? = nil) -> DeliveryNotification {
            DeliveryNotification(sequence: 1, deviceToken: "aa", topic: topic, pushType: pushType, priority: priority, receivedAtMilliseconds: 0)
        }
        XCTAssertTrue(notification(priority: 5).isPowerAware)
        XCTAssertTrue(notification(priority: 1).isPowerAware)
        XCTAssertTrue(notification(pushType: "background").isPowerAware)
        XCTAssertFalse(notification(priority: 10).isPowerAware)
        XCTAssertFalse(notification().isPowerAware)
        XCTAssertEqual(notification(topic: "com.example.app.push-type.liveactivity").bundleID, "com.example.app")
        XCTAssertEqual(notification(topic: "com.example.app").bundleID, "com.example.app")
        XCTAssertNil(notification().bundleID)
    }

    func testOnlyAcceptedNotificationsEnterTheModel() {
        var accepted = NotificationRecord(
            transport: .http2, deviceToken: "A1B2", topic: Self.app, payload: Array("{}".utf8),
            authentication: JournalAuthentication(kind: "none"), answer: SentAnswer(status: 200, apnsID: "X", uniqueID: "u", accepted: true))
        accepted.sequence = 7
        accepted.wallTimeMilliseconds = 1234
        let notification = DeliveryNotification(accepted)
        XCTAssertEqual(notification?.deviceToken, "a1b2")
        XCTAssertEqual(notification?.sequence, 7)
        XCTAssertEqual(notification?.receivedAtMilliseconds, 1234)
        XCTAssertEqual(notification?.apnsID, "X")
        XCTAssertEqual(notification?.uniqueID, "u")
        var refused = accepted
        refused.answer = SentAnswer(status: 400, reason: .badDeviceToken, apnsID: "X", accepted: false)
        XCTAssertNil(DeliveryNotification(refused))
        var dropped = accepted
        dropped.dropped = true
        XCTAssertNil(DeliveryNotification(dropped))
    }
    /// The delivery view shows the payload as JSON when the request's one examination of it
    /// found it JSON, reading that finding from the record (kept through the journal's store),
    /// never parsing the payload again: a record whose examination said "not JSON" is shown
    /// as text whatever its bytes. A payload stored cut short is not what was examined.
    func testTheDeliveryViewReadsThePayloadsOneExamination() {
        func record(_ payload: String, isJSON: Bool?, storedWhole: Bool = true) -> NotificationRecord {
            var record = NotificationRecord(
                transport: .http2, deviceToken: "a1b2", topic: Self.app, payload: Array(payload.utf8),
                authentication: JournalAuthentication(kind: "none"), answer: SentAnswer(status: 200, apnsID: "X", uniqueID: "u", accepted: true))
            record.payloadIsJSON = isJSON
            record.payloadLength = payload.utf8.count + (storedWhole ? 0 : 10)
            return record
        }
        func view(_ record: NotificationRecord) -> String? {
            var store = JournalStore(capacity: 10, capacityBytes: 1 << 20)
            store.append(sequence: 1, wallTime: 0, monotonic: 0, connection: 1, stream: 1, kind: .notification(record))
            guard let kept = store.first?.notification, let notification = DeliveryNotification(kept) else { return nil }
            return DeliveredNotification(notification: notification, deliveredAtMilliseconds: 0, fromStorage: false).json
        }
        let repeatedKey = #"{"aps":{"alert":"a"},"aps":{"alert":"b"}}"#
        let examined = PayloadJSON(Array(repeatedKey.utf8))
        XCTAssertTrue(examined.isJSON, "JSON, though a parser that refuses repeated keys would not take it")
        XCTAssertEqual(view(record(repeatedKey, isJSON: examined.isJSON))?.hasSuffix(#""payload":"# + repeatedKey + "}"), true)
        XCTAssertEqual(view(record(#"{"aps":{}}"#, isJSON: false))?.hasSuffix(#""payloadText":"{\"aps\":{}}"}"#), true,
                       "the examination's finding, not a parse of the bytes")
        XCTAssertEqual(view(record(#"{"aps":{}}"#, isJSON: true, storedWhole: false))?.hasSuffix(#""payload":{"aps":{}}}"#), true,
                       "a record cut short is examined as stored")
        XCTAssertEqual(view(record(#"{"aps":{}"#, isJSON: true, storedWhole: false))?.hasSuffix(#""payloadText":"{\"aps\":{}"}"#), true)
        XCTAssertEqual(view(record(#"{"aps":{}}"#, isJSON: nil))?.hasSuffix(#""payload":{"aps":{}}}"#), true,
                       "a record without an examination (read back from a file) is examined when the notification is made")
    }
}
