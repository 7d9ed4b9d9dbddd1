import Shiplane

/// The command line is wrong: an unknown lane or command, a missing or ill-typed option.
public struct UsageError: ReportableError {
    public var message: String
    public var suggestion: String?
    public var info: [(key: String, value: String)]
    public var category: ErrorCategory { .usage }

    public init(_ message: String, suggestion: String? = nil, info: [(key: String, value: String)] = []) {
        self.message = message
        self.suggestion = suggestion
        self.info = info
    }
}
