/// A pcapng file of connections: one raw-IP interface, every connection's packets merged in
/// time order (a connection's own packets keep their order), and the section's comments
/// saying how to read it.
package enum PacketCapture {
    /// The file's bytes.
    package static func pcapng(_ connections: [CapturedConnection], comments: [String] = []) -> [UInt8] {
        var writer = PcapNGWriter(application: "MockAPNs", comments: comments)
        let interface = writer.addInterface(linkType: PcapNGWriter.linkTypeRawIP, name: "mockapns-journal")
        var packets: [(packet: TCPConversation.Packet, connection: Int, index: Int)] = []
        for (number, connection) in connections.enumerated() {
            for (index, packet) in TCPConversation(connection).packets.enumerated() {
                packets.append((packet, number, index))
            }
        }
        packets.sort { left, right in
            if left.packet.time != right.packet.time { return left.packet.time < right.packet.time }
            if left.connection != right.connection { return left.connection < right.connection }
            return left.index < right.index
        }
        for entry in packets {
            writer.addPacket(interface: interface, time: entry.packet.time, data: entry.packet.data, comment: entry.packet.comment)
        }
        return writer.bytes
    }

    /// The section's comments: which dissector each server port needs (tshark's `-d`
    /// options), since nothing in a plaintext capture says HTTP/2 or the legacy protocol.
    package static func readingHints(for connections: [CapturedConnection]) -> [String] {
        func ports(_ application: CaptureApplication) -> [UInt16] {
            Array(Set(connections.filter { $0.application == application }.map(\.server.port))).sorted()
        }
        var hints = ["MockAPNs journal: each recorded connection as TCP on its ports, carrying its plaintext (TLS is not captured)."]
        var decodeAs: [String] = []
        for (application, dissector) in [(CaptureApplication.http2, "http2"), (.legacyGateway, "mockapns_gateway"), (.feedback, "mockapns_feedback")] {
            decodeAs += ports(application).map { "-d tcp.port==\($0),\(dissector)" }
        }
        if !decodeAs.isEmpty {
            var command = "Read with: tshark -r FILE"
            if !ports(.legacyGateway).isEmpty || !ports(.feedback).isEmpty {
                command += " -X lua_script:tools/wireshark/mockapns-legacy.lua"
            }
            hints.append(command + " " + decodeAs.joined(separator: " "))
        }
        return hints
    }
}
