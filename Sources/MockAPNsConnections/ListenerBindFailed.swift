import NIOCore

/// A listener could not bind its address: says which listener, which address, why, and the
/// flag that moves it, so "Address already in use" is never a riddle.
package struct ListenerBindFailed: Error, Sendable, CustomStringConvertible {
    /// The listener, as people call it: `HTTP/2 provider API`, `legacy gateway`, `feedback service`.
    package var listener: String
    package var host: String
    package var port: Int
    /// The system's words (typically "Address already in use").
    package var reason: String
    /// The flag and configuration key that choose another port.
    package var portFlag: String

    package var description: String {
        "the \(listener) cannot listen on \(host):\(port): \(reason); choose another port with \(portFlag) (0 picks a free one)"
    }

    /// Runs `bind`, turning its failure into a `ListenerBindFailed` naming the listener.
    package static func binding<Result>(
        _ listener: String, host: String, port: Int, portFlag: String,
        _ bind: () async throws -> Result
    ) async throws -> Result {
        do {
            return try await bind()
        } catch let error as IOError {
            throw ListenerBindFailed(listener: listener, host: host, port: port, reason: Self.words(error), portFlag: portFlag)
        } catch {
            throw ListenerBindFailed(listener: listener, host: host, port: port, reason: "\(error)", portFlag: portFlag)
        }
    }

    /// `strerror` of the error's errno ("Address already in use"), without NIO's prefix.
    private static func words(_ error: IOError) -> String {
        String(cString: strerror(error.errnoCode))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
