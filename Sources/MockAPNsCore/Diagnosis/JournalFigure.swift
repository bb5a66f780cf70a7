/// One named number in a diagnosis: `connections: 10`.
package struct JournalFigure: Sendable, Equatable {
    package var name: String
    package var value: Int64

    package init(_ name: String, _ value: Int64) {
        self.name = name
        self.value = value
    }
}
