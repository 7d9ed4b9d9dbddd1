import Shiplane

/// The command line is wrong: an unknown lane or command, a missing or ill-typed option.
package struct UsageError: ReportableError {
    package var message: String
    package var suggestion: String?
    package var info: [(key: String, value: String)]
    package var category: ErrorCategory { .usage }

    package init(_ message: String, suggestion: String? = nil, info: [(key: String, value: String)] = []) {
        self.message = message
        self.suggestion = suggestion
        self.info = info
    }
}
