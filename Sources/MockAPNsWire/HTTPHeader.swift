/// One header field as it arrived or as it is sent, in order. Pseudo-headers keep their
/// colon (`:path`); names are lowercase on the wire. The one header type of every module: the
/// HTTP/2 session decodes a request's fields into these, the decision core reads them, and
/// the journal records the same values.
package struct HTTPHeader: Sendable, Hashable, CustomStringConvertible {
    package var name: String
    /// The value, decoded as UTF-8 (bytes that are not become U+FFFD).
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    package var description: String { "\(name): \(value)" }
}
