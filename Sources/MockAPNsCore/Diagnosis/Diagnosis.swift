/// Something a decision noticed that the answer alone does not tell the provider: a payload
/// Apple accepts but the device ignores, a token that belongs to the other environment, a
/// rate window that was full. The decision cores return these beside their verdicts; the
/// protocol mouths journal them as `diagnosis` events of the request's stream.
package struct Diagnosis: Sendable, Equatable {
    package var code: DiagnosisCode
    /// What was wrong in this case, in plain words.
    package var message: String
    /// The numbers behind it, by name.
    package var figures: [JournalFigure]

    package init(_ code: DiagnosisCode, _ message: String, figures: [JournalFigure] = []) {
        self.code = code
        self.message = message
        self.figures = figures
    }
}
