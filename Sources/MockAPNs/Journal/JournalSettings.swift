// The journal in the server: its settings, the server's journal API (records, waits), and
// the readers that run beside the event loops (ServerObservation).

import MockAPNsObservation
import MockAPNsCore
import MockAPNsJournal

extension MockAPNsConfiguration {
    /// What the journal keeps and where it writes (`journal` in a configuration file).
    package struct JournalSettings: Sendable, Equatable {
        /// Events kept in memory; when full, the oldest go first and are counted as dropped.
        package var capacity: Int = 100_000
        /// Bytes the events kept in memory may take (at least 1 MiB); when reached before
        /// `capacity`, the oldest go first all the same. `nil` (the default): 1 KiB for each
        /// event of `capacity`, at least 128 MiB, which holds that many events of usual traffic
        /// and bounds what large or junk input can make the journal hold.
        package var capacityBytes: Int? = nil
        /// A JSON Lines file that receives every event, even those the memory store drops.
        /// `nil`: no file.
        package var file: String? = nil
        /// Whether every HTTP/2 frame is recorded (off for benchmarks). Notifications are
        /// always recorded.
        package var recordsFrames: Bool = true
        /// How provider tokens are recorded: without their signature (the default), whole, or
        /// `<redacted>`.
        package var providerTokens: ProviderTokenRecording = .withoutSignature

        /// Whether provider tokens are recorded as `<redacted>` (`--redact-tokens`).
        package var redactsTokens: Bool {
            get { providerTokens == .redacted }
            set { providerTokens = newValue ? .redacted : .withoutSignature }
        }
        /// What the file does when its writer falls behind: the server waits for it (the
        /// default, so the file is complete), or it leaves gaps for what the memory journal
        /// no longer holds.
        package var fileWhenBehind: JournalFileBehindPolicy = .wait
        /// How many events the file's buffer holds before `fileWhenBehind` applies.
        package var fileBufferEvents: Int = 65_536
        /// How long the shutdown may spend writing what the file's buffer still holds; events
        /// not written by then are left out, marked by a gap line, and the log says so.
        package var fileCloseBound: Duration = .seconds(3)

        /// The defaults: 100,000 events kept, within 128 MiB, every frame recorded, no file.
        package init() {}

        /// The core journal's options.
        package var options: JournalOptions {
            JournalOptions(
                capacity: capacity, capacityBytes: capacityBytes, recordsFrames: recordsFrames, providerTokens: providerTokens
            )
        }

        static let fileKeys = [
            "capacity", "capacityBytes", "file", "fileBuffer", "fileCloseSeconds", "fileWhenBehind", "frames", "providerTokens", "redactTokens",
        ]

        /// Reads the `journal` object of a configuration file over these values.
        mutating func read(_ object: inout JSONObjectReader) throws(JSONFileError) {
            if let value = try object.integer("capacity", in: 1...100_000_000) { capacity = Int(value) }
            if let value = try object.integer("capacityBytes", in: Int64(JournalOptions.minimumCapacityBytes)...(Int64(1) << 40)) {
                capacityBytes = Int(value)
            }
            if let value = try object.string("file") { file = value }
            if let value = try object.oneOf("fileWhenBehind", JournalFileBehindPolicy.self) { fileWhenBehind = value }
            if let value = try object.integer("fileBuffer", in: 1...10_000_000) { fileBufferEvents = Int(value) }
            if let value = try object.integer("fileCloseSeconds", in: 0...3600) { fileCloseBound = .seconds(value) }
            if let value = try object.bool("frames") { recordsFrames = value }
            if let value = try object.bool("redactTokens") { redactsTokens = value }
            if let value = try object.oneOf("providerTokens", ProviderTokenRecording.self) { providerTokens = value }
            try object.finish(allowed: Self.fileKeys)
        }
    }
}
