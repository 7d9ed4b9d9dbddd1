import Shiplane

/// Something outside the command line keeps Shiplane from starting: no `Lanes/`, no `swiftc`.
public struct EnvironmentProblem: ReportableError {
    public var message: String
    public var suggestion: String?
    public var info: [(key: String, value: String)]
    public var category: ErrorCategory { .environment }

    public init(_ message: String, suggestion: String? = nil, info: [(key: String, value: String)] = []) {
        self.message = message
        self.suggestion = suggestion
        self.info = info
    }
}
