import MockAPNsCapture
import MockAPNsCore
import MockAPNsJournal

extension MockAPNsServer {
    /// The journal's connections as a pcapng capture: each recorded connection a TCP
    /// conversation between the client's address and the listener's port, carrying the
    /// plaintext as recorded both ways (HTTP/2 frames, legacy frames and error packets,
    /// feedback tuples), with the journal's times. Write the bytes to a `.pcapng` file and
    /// open it in Wireshark, or read it with
    /// `tshark -r FILE -d tcp.port==<http2 port>,http2`; the file's comments give the
    /// options for its ports. HTTP/2 header blocks are re-encoded from the recorded header
    /// lists, so the frames are recorded with the journal on (`journal.recordsFrames`).
    public func journalCapture() -> [UInt8] {
        let events = journal.events(matching: JournalEventFilter(kinds: JournalCapture.kinds))
        return JournalCapture.pcapng(events, ports: capturePorts)
    }

    /// The listeners' ports and address, as the capture names its servers.
    var capturePorts: CapturePorts {
        guard let ports else { return CapturePorts(listeners: []) }
        var listeners: [CapturePorts.Listener] = []
        func add(_ transport: Transport, _ environment: APNsEnvironment?, _ port: Int?) {
            guard let port, let number = UInt16(exactly: port) else { return }
            listeners.append(CapturePorts.Listener(transport: transport, environment: environment, port: number))
        }
        for own in ports.environments {
            add(.http2, own.environment, own.http2)
            add(.legacy, own.environment, own.gateway)
            add(.feedback, own.environment, own.feedback)
            add(.channelManagement, own.environment, own.channelManagement)
        }
        add(.http2, nil, ports.http2)
        add(.legacy, nil, ports.gateway)
        add(.feedback, nil, ports.feedback)
        add(.channelManagement, nil, ports.channelManagement)
        add(.webPush, nil, ports.webPush)
        // A listener on every address (0.0.0.0, ::) names none: the client's loopback stands in.
        let address = CaptureAddress(configuration.host).flatMap { $0.bytes.allSatisfy { $0 == 0 } ? nil : $0 }
        return CapturePorts(listeners: listeners, address: address)
    }
}
