/// A limit on pushes to one device token: at most `pushes` in each window of
/// `perMilliseconds`, counted on the server clock (a test advances the clock instead of
/// sleeping). Pushes over it get `429 TooManyRequests`, which Apple answers when a device
/// receives too many notifications in a short time ("Handling notification responses from
/// APNs", developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns);
/// Apple publishes no numbers, so every figure here is the provider's test's to choose.
///
/// Windows are fixed, starting at the first push after the previous window ended: simple to
/// predict in a test, which matters more here than smoothness.
public struct RateWindow: Sendable, Hashable {
    /// Pushes allowed in one window; `0` refuses every push.
    public var pushes: Int
    /// The window's length in milliseconds (at least 1).
    public var perMilliseconds: Int64

    /// At most `pushes` pushes to one token within any `perMilliseconds`.
    public init(pushes: Int, perMilliseconds: Int64) {
        self.pushes = max(0, pushes)
        self.perMilliseconds = max(1, perMilliseconds)
    }

    /// The window in seconds, as configuration files and the control API spell it.
    package var perSeconds: Double { Double(perMilliseconds) / 1000 }
}

/// One token's count in its current window.
struct RateCount: Sendable {
    private(set) var windowStart: Int64 = 0
    private(set) var count = 0

    /// Counts one push at `now` under `window`; the count includes it.
    mutating func count(at now: Int64, in window: RateWindow) -> Int {
        let (elapsed, overflow) = now.subtractingReportingOverflow(windowStart)
        if count > 0, !overflow, elapsed >= 0, elapsed < window.perMilliseconds {
            count += 1
        } else {
            windowStart = now
            count = 1
        }
        return count
    }

    /// Whether the window that began at `windowStart` is over at `now`.
    func hasEnded(at now: Int64, in window: RateWindow) -> Bool {
        let (elapsed, overflow) = now.subtractingReportingOverflow(windowStart)
        return overflow || elapsed < 0 || elapsed >= window.perMilliseconds
    }
}

/// Why a push was refused for its rate window: the figures the journal keeps.
package struct RateRefusal: Sendable, Equatable {
    package var window: RateWindow
    /// Whose limit it was: the token's own, or the server-wide `registry.rateLimit`.
    package var isServerWide: Bool
    /// This push's place in the window (more than `window.pushes`).
    package var pushNumber: Int
    /// When the window began and how long until it ends, by the server clock.
    package var windowStart: Int64
    package var millisecondsLeft: Int64

    /// The diagnosis the journal records beside the 429.
    package func diagnosis(token: String) -> Diagnosis {
        let whose = isServerWide ? "the server-wide limit (registry.rateLimit)" : "this token's limit"
        let message = "Token \(token): push \(pushNumber) in a window of \(Self.seconds(window.perMilliseconds)) s that allows "
            + "\(window.pushes) under \(whose); the window ends in \(Self.seconds(millisecondsLeft)) s. APNs answers "
            + "TooManyRequests when one device gets too many pushes in a short time: send fewer, and retry after a delay."
        return Diagnosis(.registryRateLimited, message, figures: [
            JournalFigure("pushes", Int64(window.pushes)), JournalFigure("perMilliseconds", window.perMilliseconds),
            JournalFigure("pushNumber", Int64(pushNumber)), JournalFigure("windowStart", windowStart),
            JournalFigure("millisecondsLeft", millisecondsLeft),
        ])
    }

    private static func seconds(_ milliseconds: Int64) -> String {
        milliseconds % 1000 == 0 ? String(milliseconds / 1000) : String(Double(milliseconds) / 1000)
    }
}

extension RateWindow {
    /// `{"pushes": N, "perSeconds": S}`, both required: the shape the configuration file and
    /// the control API share.
    package static func read(_ reader: inout JSONObjectReader) throws(JSONFileError) -> RateWindow {
        guard let pushes = try reader.integer("pushes", in: 0...1_000_000_000) else {
            throw reader.missing("pushes", expected: "how many pushes a window allows, from 0 to 1000000000")
        }
        guard let seconds = try reader.double("perSeconds", in: 0.001...31_536_000) else {
            throw reader.missing("perSeconds", expected: "the window's length in seconds, from 0.001 to 31536000 (a year)")
        }
        try reader.finish(allowed: ["pushes", "perSeconds"])
        return RateWindow(pushes: Int(pushes), perMilliseconds: max(1, Int64((seconds * 1000).rounded())))
    }
}
