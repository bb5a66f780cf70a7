// The journal as a packet capture: recorded connections written as TCP conversations in a
// pcapng file that Wireshark and tshark read. `CapturedConnection` is what the writer takes
// (endpoints, protocol, the bytes each way in order, with their times); `PacketCapture`
// writes the file (`TCPConversation` makes the packets, `PcapNGWriter` the blocks); the
// `JournalCapture` adapter makes the connections from the journal's events.

/// One connection as a capture shows it: who talked to whom, in what protocol, and the
/// plaintext each side sent, chunk by chunk, in the order it was recorded.
package struct CapturedConnection: Sendable, Equatable {
    package var client: CaptureEndpoint
    package var server: CaptureEndpoint
    package var application: CaptureApplication
    /// When the connection was opened: its handshake's time, in nanoseconds since 1970.
    package var openedAt: UInt64
    package var chunks: [CaptureChunk]
    /// How it ended; `nil` while it was still open (the conversation then has no FIN).
    package var closing: CaptureClosing?
    /// What the capture says about the connection as a whole (its journal number, the TLS
    /// session), written as the comment of its first packet.
    package var comment: String?

    package init(
        client: CaptureEndpoint, server: CaptureEndpoint, application: CaptureApplication, openedAt: UInt64,
        chunks: [CaptureChunk] = [], closing: CaptureClosing? = nil, comment: String? = nil
    ) {
        self.client = client
        self.server = server
        self.application = application
        self.openedAt = openedAt
        self.chunks = chunks
        self.closing = closing
        self.comment = comment
    }
}

/// Bytes one side sent, at one time.
package struct CaptureChunk: Sendable, Equatable {
    /// Nanoseconds since 1970.
    package var time: UInt64
    package var direction: CaptureDirection
    package var bytes: [UInt8]
    /// Said of this chunk's first packet: where its bytes were made rather than recorded.
    package var comment: String?

    package init(time: UInt64, direction: CaptureDirection, bytes: [UInt8], comment: String? = nil) {
        self.time = time
        self.direction = direction
        self.bytes = bytes
        self.comment = comment
    }
}

/// Which way bytes travelled.
package enum CaptureDirection: Sendable, Hashable {
    case clientToServer, serverToClient
}

/// Who closed a connection, and when (nanoseconds since 1970).
package struct CaptureClosing: Sendable, Equatable {
    package var time: UInt64
    package var byClient: Bool

    package init(time: UInt64, byClient: Bool) {
        self.time = time
        self.byClient = byClient
    }
}

/// The protocol a connection's plaintext is in, which tells a reader of the capture which
/// dissector its port needs.
package enum CaptureApplication: String, Sendable, Hashable, CaseIterable {
    /// HTTP/2 (the provider API, channel management, web push over h2).
    case http2
    /// HTTP/1.1 (web push without h2); its bytes are not recorded.
    case http1
    /// The legacy binary gateway.
    case legacyGateway
    /// The legacy feedback service.
    case feedback
}

/// An IP address and a TCP port.
package struct CaptureEndpoint: Sendable, Hashable {
    package var address: CaptureAddress
    package var port: UInt16

    package init(address: CaptureAddress, port: UInt16) {
        self.address = address
        self.port = port
    }
}

/// An IPv4 or IPv6 address, as its bytes in network order.
package enum CaptureAddress: Sendable, Hashable {
    case v4(UInt8, UInt8, UInt8, UInt8)
    case v6([UInt8])

    package static let loopbackV4 = CaptureAddress.v4(127, 0, 0, 1)
    package static let loopbackV6 = CaptureAddress.v6(Array(repeating: 0, count: 15) + [1])

    /// The address's bytes: 4 or 16.
    package var bytes: [UInt8] {
        switch self {
        case .v4(let a, let b, let c, let d): [a, b, c, d]
        case .v6(let bytes): bytes
        }
    }

    package var isV6: Bool {
        switch self {
        case .v4: false
        case .v6: true
        }
    }

    /// The loopback address of the same family.
    package var loopback: CaptureAddress { isV6 ? .loopbackV6 : .loopbackV4 }

    /// Reads dotted IPv4 (`127.0.0.1`) or textual IPv6 (`::1`, `fe80::1:2`); `nil` for
    /// anything else, a host name included.
    package init?(_ text: some StringProtocol) {
        if text.contains(":") {
            guard let bytes = Self.ipv6Bytes(String(text)) else { return nil }
            self = .v6(bytes)
        } else {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            let numbers = parts.compactMap { part in part.count <= 3 && part.allSatisfy(\.isASCII) ? UInt8(part) : nil }
            guard numbers.count == 4 else { return nil }
            self = .v4(numbers[0], numbers[1], numbers[2], numbers[3])
        }
    }

    /// The 16 bytes of an IPv6 address in text, with at most one `::`; no embedded IPv4.
    private static func ipv6Bytes(_ text: String) -> [UInt8]? {
        var halves = [Substring(text)]
        if let gap = text.firstRange(of: "::") {
            halves = [text[..<gap.lowerBound], text[gap.upperBound...]]
            guard !halves[1].contains("::") else { return nil }
        }
        func groups(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var values: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                values.append(value)
            }
            return values
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count <= 7 else { return nil }
            all += Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
    }
}
