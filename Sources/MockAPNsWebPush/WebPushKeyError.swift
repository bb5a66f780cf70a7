/// Why an `applicationServerKey` was refused, in the words a page author needs
/// ("applicationServerKey: expected ... got ...").
package struct WebPushKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
