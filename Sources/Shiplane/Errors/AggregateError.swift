/// Several failures from work that ran side by side, reported together.
public struct AggregateError: ReportableError {
    /// What failed overall, in one line.
    public var message: String
    /// Facts about the work as a whole.
    public var info: [(key: String, value: String)]
    /// Every failure of the work, as collected.
    public var underlyingErrors: [any Error]

    /// Creates an error that reports `errors` together under `message`.
    public init(_ message: String, info: [(key: String, value: String)] = [], errors: [any Error]) {
        self.message = message
        self.info = info
        self.underlyingErrors = errors
    }
}
