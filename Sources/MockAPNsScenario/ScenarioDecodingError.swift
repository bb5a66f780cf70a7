import MockAPNsCore
/// Every mistake found in a scenario file, each with its JSON path, line, column and what
/// was expected. Decoding does not stop at the first mistake, so one run shows them all.
public struct ScenarioDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// In document order.
    package var errors: [JSONFileError]

    package init(errors: [JSONFileError]) {
        self.errors = errors
    }

    /// One line per mistake: `line 7, column 21: $.rules[0].action.reason: expected ...`.
    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }
}
