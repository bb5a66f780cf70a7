/// One named number in a diagnosis: `connections: 10`.
public struct JournalFigure: Sendable, Equatable {
    public var name: String
    public var value: Int64

    public init(_ name: String, _ value: Int64) {
        self.name = name
        self.value = value
    }
}
