/// Where PEM text comes from: a file on disk or bytes already in memory.
package enum PEMSource: Sendable, Hashable, CustomStringConvertible {
    /// A path to a PEM file.
    case file(String)
    /// PEM text held in memory.
    case bytes([UInt8])

    /// PEM text held in a string.
    package static func string(_ text: String) -> PEMSource {
        .bytes(Array(text.utf8))
    }

    /// Names the source in error messages without dumping key material.
    package var description: String {
        switch self {
        case .file(let path): return path
        case .bytes(let bytes): return "in-memory PEM (\(bytes.count) bytes)"
        }
    }
}
