internal import COpenSSL
import NIOCore

/// The BIO between OpenSSL and the channel: ciphertext from the socket is read by OpenSSL
/// straight out of the `ByteBuffer` it arrived in, and ciphertext OpenSSL produces is written
/// straight into the `ByteBuffer` that goes to the socket. A pair of memory BIOs would copy
/// each into and out of buffers of their own.
///
/// One object serves as both the read and the write BIO of one `SSL`. OpenSSL calls back
/// only from inside that connection's own calls, on its channel's event loop; the BIO holds
/// this object without a retain, and `OpenSSLConnection` keeps it alive until after
/// `SSL_free`.
final class ByteBufferBIO {
    /// Ciphertext received and not yet read by OpenSSL.
    private var inbound: ByteBuffer?
    /// Ciphertext OpenSSL wrote, waiting to be taken for the socket.
    private var outbound: ByteBuffer?
    private let allocator: ByteBufferAllocator
    /// The `BIO *`, owned by the `SSL` it is given to.
    let pointer: OpaquePointer
    /// Whether OpenSSL has destroyed the `BIO *` (its last reference went with `SSL_free`):
    /// a BIO that outlived its connection would be memory kept for every connection ever made.
    private(set) var destroyed = false

    /// Room the outbound buffer starts with: a full TLS record and its overhead.
    private static let outboundCapacity = 16 * 1024 + 256

    init?(allocator: ByteBufferAllocator) {
        guard let method = Self.method, let bio = BIO_new(method) else { return nil }
        self.allocator = allocator
        self.pointer = bio
        BIO_set_data(bio, Unmanaged.passUnretained(self).toOpaque())
        BIO_set_init(bio, 1)
    }

    /// Ciphertext from the socket. Unread bytes of an earlier buffer (a record split across
    /// reads) come first.
    func receive(_ ciphertext: ByteBuffer) {
        if var waiting = inbound, waiting.readableBytes > 0 {
            waiting.writeImmutableBuffer(ciphertext)
            inbound = waiting
        } else {
            inbound = ciphertext
        }
    }

    /// Ciphertext received and not yet read by OpenSSL.
    var pendingInbound: Int { inbound?.readableBytes ?? 0 }

    /// Ciphertext waiting to be sent.
    var pendingOutbound: Int { outbound?.readableBytes ?? 0 }

    /// Takes the ciphertext written so far, or `nil` when there is none.
    func takeOutbound() -> ByteBuffer? {
        guard let buffer = outbound, buffer.readableBytes > 0 else { return nil }
        outbound = nil
        return buffer
    }

    // MARK: The callbacks

    private func read(into destination: UnsafeMutablePointer<CChar>, count: Int, bio: OpaquePointer) -> Int? {
        guard var buffer = inbound, buffer.readableBytes > 0 else {
            mockapns_BIO_set_retry_read(bio)
            return nil
        }
        let taken = min(count, buffer.readableBytes)
        buffer.withUnsafeReadableBytes { bytes in
            if let base = bytes.baseAddress {
                UnsafeMutableRawPointer(destination).copyMemory(from: base, byteCount: taken)
            }
        }
        buffer.moveReaderIndex(forwardBy: taken)
        // A drained buffer is let go at once, so its memory goes back while the connection idles.
        inbound = buffer.readableBytes > 0 ? buffer : nil
        return taken
    }

    private func write(from source: UnsafePointer<CChar>, count: Int) {
        if outbound == nil {
            outbound = allocator.buffer(capacity: max(count, Self.outboundCapacity))
        }
        outbound?.writeBytes(UnsafeRawBufferPointer(start: source, count: count))
    }

    private func control(_ command: Int32) -> Int {
        switch command {
        case BIO_CTRL_FLUSH: 1
        case BIO_CTRL_PENDING: pendingInbound
        case BIO_CTRL_WPENDING: pendingOutbound
        default: 0
        }
    }

    private static func from(_ bio: OpaquePointer?) -> ByteBufferBIO? {
        guard let bio, let data = BIO_get_data(bio) else { return nil }
        return Unmanaged<ByteBufferBIO>.fromOpaque(data).takeUnretainedValue()
    }

    /// The BIO method, made once: a constant after its creation, shared by every connection.
    nonisolated(unsafe) private static let method: OpaquePointer? = {
        let type = BIO_get_new_index() | BIO_TYPE_SOURCE_SINK
        guard let method = BIO_meth_new(type, "mockapns ByteBuffer") else { return nil }
        BIO_meth_set_read_ex(method) { bio, destination, count, read in
            mockapns_BIO_clear_retry_flags(bio)
            guard let bio, let destination, let owner = ByteBufferBIO.from(bio),
                  let taken = owner.read(into: destination, count: count, bio: bio) else {
                read?.pointee = 0
                return 0
            }
            read?.pointee = taken
            return 1
        }
        BIO_meth_set_write_ex(method) { bio, source, count, written in
            mockapns_BIO_clear_retry_flags(bio)
            guard let source, let owner = ByteBufferBIO.from(bio) else {
                written?.pointee = 0
                return 0
            }
            owner.write(from: source, count: count)
            written?.pointee = count
            return 1
        }
        BIO_meth_set_ctrl(method) { bio, command, _, _ in
            ByteBufferBIO.from(bio).map { $0.control(command) } ?? 0
        }
        BIO_meth_set_create(method) { _ in 1 }
        BIO_meth_set_destroy(method) { bio in
            // The Swift object is owned by the connection, not by the BIO, and is still alive
            // here (`OpenSSLConnection` releases it only after `SSL_free`).
            ByteBufferBIO.from(bio)?.destroyed = true
            BIO_set_data(bio, nil)
            BIO_set_init(bio, 0)
            return 1
        }
        return method
    }()
}
