/// Several failures from work that ran side by side, reported together.
public struct AggregateError: ReportableError {
    public var message: String
    public var info: [(key: String, value: String)]
    public var underlyingErrors: [any Error]

    public init(_ message: String, info: [(key: String, value: String)] = [], errors: [any Error]) {
        self.message = message
        self.info = info
        self.underlyingErrors = errors
    }
}
