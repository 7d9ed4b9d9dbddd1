import Shiplane

/// Something outside the command line keeps Shiplane from starting: no `Lanes/`, no `swiftc`.
package struct EnvironmentProblem: ReportableError {
    package var message: String
    package var suggestion: String?
    package var info: [(key: String, value: String)]
    package var category: ErrorCategory { .environment }

    package init(_ message: String, suggestion: String? = nil, info: [(key: String, value: String)] = []) {
        self.message = message
        self.suggestion = suggestion
        self.info = info
    }
}
