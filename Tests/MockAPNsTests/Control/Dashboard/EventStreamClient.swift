import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A Server-Sent Events reader over a plain TCP socket: sends one GET and parses the stream's
/// messages as they arrive, the way a browser's EventSource does (only what the tests need).
final class EventStreamClient {
    struct Message: Equatable {
        var id: String?
        var event: String
        var data: String
    }

    private let socket: Int32
    private var pending = ""
    /// The response's status line and headers.
    private(set) var head = ""

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(port: Int, path: String, headers: [String: String] = [:], timeout: TimeInterval = 5) throws {
        #if canImport(Glibc)
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else { throw Failure(description: "socket() failed") }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close()
            throw Failure(description: "cannot connect to port \(port)")
        }
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        guard send(socket, bytes, bytes.count, 0) == bytes.count else { throw Failure(description: "send failed") }
    }

    deinit { close() }

    private var closed = false
    func close() {
        guard !closed else { return }
        closed = true
        _ = shutdown(socket, Int32(SHUT_RDWR))
        #if canImport(Glibc)
        _ = Glibc.close(socket)
        #else
        _ = Darwin.close(socket)
        #endif
    }

    /// The status code of the response (reads the head if needed).
    func status() throws -> Int {
        try readHead()
        let parts = head.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line: \(head)") }
        return status
    }

    /// The whole body of a plain (non-stream) response, as long as its Content-Length says.
    func bufferedBody() -> String {
        guard (try? readHead()) != nil else { return "" }
        let lengthLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
        let length = lengthLine.flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") } ?? 0
        while pending.utf8.count < length, (try? receive()) != nil {}
        return pending
    }

    /// The next message (`data` lines joined); comments and retry fields are skipped, and so
    /// are the delivery model's progress messages (`event: delivered`) unless `progress`.
    /// Throws when nothing arrives within the socket's timeout.
    func next(progress: Bool = false) throws -> Message {
        try readHead()
        while true {
            if let end = pending.range(of: "\n\n") {
                let block = String(pending[..<end.lowerBound])
                pending.removeSubrange(..<end.upperBound)
                var message = Message(id: nil, event: "message", data: "")
                var dataLines: [String] = []
                for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix(":") { continue }
                    let (field, value) = Self.field(line)
                    switch field {
                    case "id": message.id = value
                    case "event": message.event = value
                    case "data": dataLines.append(value)
                    default: break
                    }
                }
                guard !dataLines.isEmpty, progress || message.event != "delivered" else { continue }
                message.data = dataLines.joined(separator: "\n")
                return message
            }
            try receive()
        }
    }

    /// The next `count` messages.
    func next(_ count: Int) throws -> [Message] {
        try (0..<count).map { _ in try next() }
    }

    private static func field(_ line: Substring) -> (String, String) {
        guard let colon = line.firstIndex(of: ":") else { return (String(line), "") }
        var value = line[line.index(after: colon)...]
        if value.hasPrefix(" ") { value = value.dropFirst() }
        return (String(line[..<colon]), String(value))
    }

    private func readHead() throws {
        guard head.isEmpty else { return }
        while true {
            if let end = pending.range(of: "\r\n\r\n") {
                head = String(pending[..<end.lowerBound])
                pending.removeSubrange(..<end.upperBound)
                chunked = head.lowercased().contains("transfer-encoding: chunked")
                if chunked { raw = Array(pending.utf8); pending = ""; decodeChunks() } else { raw = [] }
                return
            }
            try receiveRaw()
            pending = String(decoding: raw, as: UTF8.self)
        }
    }

    private var raw: [UInt8] = []
    private var chunked = false

    /// Reads more bytes and moves whole chunks of the body into `pending`.
    private func receive() throws {
        try receiveRaw()
        if chunked { decodeChunks() } else { pending += String(decoding: raw, as: UTF8.self); raw = [] }
    }

    private func receiveRaw() throws {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(socket, &buffer, buffer.count, 0)
        guard count > 0 else { throw Failure(description: count == 0 ? "the server closed the stream" : "timed out waiting for the stream") }
        raw += buffer[..<count]
    }

    private func decodeChunks() {
        while let lineEnd = Self.find([13, 10], in: raw) {
            let sizeText = String(decoding: raw[..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return }
            let start = lineEnd + 2
            guard raw.count >= start + size + 2 else { return }
            pending += String(decoding: raw[start..<(start + size)], as: UTF8.self)
            raw.removeFirst(start + size + 2)
        }
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        for index in 0...(bytes.count - needle.count) where bytes[index] == needle[0] && bytes[index + 1] == needle[1] {
            return index
        }
        return nil
    }
}
