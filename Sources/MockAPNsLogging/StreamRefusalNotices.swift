import Logging
import NIOCore
import Synchronization

/// The log's word on HTTP/2 streams the HTTP/2 layer refused before the server read their
/// request (reset over a malformed request, refused beyond the stream limit, answered 431,
/// opened after GOAWAY), shared by every HTTP/2 connection of a server.
///
/// A client that gets one stream refused usually gets every one (an empty provider token sent
/// as `bearer `, a header it always spells wrong), and a notice per stream made the log as long
/// as the traffic. So the first refusal after a quiet spell is logged whole, the ones that
/// follow within `window` are only counted, and one notice says how many there were when the
/// window ends. Each refused stream is still in the journal, with its diagnosis and record.
package final class StreamRefusalNotices: Sendable {
    /// What happened to a stream, as the summary counts it.
    package enum Kind: Int, CaseIterable, Sendable {
        case reset, refused, answeredEarly, openedAfterGoAway

        package var words: String {
            switch self {
            case .reset: "reset"
            case .refused: "refused beyond the stream limit"
            case .answeredEarly: "answered before their request was read"
            case .openedAfterGoAway: "opened after GOAWAY"
            }
        }
    }

    private struct State {
        /// When the current window ends; `nil` before the first refusal.
        var windowEnds: NIODeadline?
        /// Refusals counted and not yet said, by `Kind`.
        var counted = Array(repeating: 0, count: Kind.allCases.count)
        /// Whether a summary is scheduled for the end of the window.
        var summaryScheduled = false
    }

    private let state = Mutex(State())
    private let logger: Logger
    package let window: TimeAmount

    package init(logger: Logger, window: Duration = .seconds(10)) {
        self.logger = logger
        self.window = TimeAmount(window)
    }

    /// Logs `message` through `logger` (the connection's) when the refusal opens a window;
    /// otherwise counts it, and makes sure a summary is said on `eventLoop` when the window
    /// ends. `message` is made only when it is logged.
    package func note(_ kind: Kind, logger connectionLogger: Logger, on eventLoop: any EventLoop, _ message: () -> String) {
        let now = NIODeadline.now()
        let window = self.window
        let (opensWindow, summaryAt) = state.withLock { state -> (Bool, NIODeadline?) in
            if let ends = state.windowEnds, now < ends {
                state.counted[kind.rawValue] += 1
                guard !state.summaryScheduled else { return (false, nil) }
                state.summaryScheduled = true
                return (false, ends)
            }
            state.windowEnds = now + window
            return (true, nil)
        }
        if opensWindow { connectionLogger.notice("\(message())") }
        if let summaryAt {
            eventLoop.scheduleTask(deadline: summaryAt) { self.sayCounted() }
        }
    }

    /// Logs the refusals counted since the last summary, if any, in one notice.
    package func sayCounted() {
        let counted = state.withLock { state -> [Int] in
            defer {
                state.counted = Array(repeating: 0, count: Kind.allCases.count)
                state.summaryScheduled = false
            }
            return state.counted
        }
        let total = counted.reduce(0, +)
        guard total > 0 else { return }
        let parts = Kind.allCases.compactMap { kind -> String? in
            counted[kind.rawValue] > 0 ? "\(counted[kind.rawValue]) \(kind.words)" : nil
        }
        logger.notice(
            "HTTP/2: \(total) more stream\(total == 1 ? "" : "s") refused within \(Self.describe(window)) of the one logged before (\(parts.joined(separator: ", "))); each is in the journal with its diagnosis",
            metadata: ["refusedStreams": "\(total)"]
        )
    }

    /// `10 s`, or `500 ms` for a window under a second.
    private static func describe(_ window: TimeAmount) -> String {
        let milliseconds = window.nanoseconds / 1_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
