import Foundation

/// An app package (IPA or AAB) that cannot be uploaded as it is: missing, not a zip, or without
/// the metadata the store needs.
public struct StorePackageError: ReportableError {
    public var path: String
    public var problem: String
    public var suggestion: String?

    public init(path: String, problem: String, suggestion: String? = nil) {
        self.path = path
        self.problem = problem
        self.suggestion = suggestion
    }

    public var message: String { "\(path): \(problem)" }
}

/// Store credentials that are missing or unusable. Never carries the secret itself.
public struct StoreCredentialsError: ReportableError {
    public var message: String
    public var suggestion: String?

    public init(_ message: String, suggestion: String? = nil) {
        self.message = message
        self.suggestion = suggestion
    }
}

/// A store API answered with an error: the operation, the status and the store's own error
/// list (Apple's `errors[]` with code, title and detail; Google's `error.message`), redacted.
public struct StoreAPIError: ReportableError {
    public var service: String
    public var operation: String
    public var status: Int
    /// The store's errors, one line each.
    public var details: [String]
    public var suggestion: String?

    public init(service: String, operation: String, status: Int, details: [String], suggestion: String? = nil) {
        self.service = service
        self.operation = operation
        self.status = status
        self.details = details
        self.suggestion = suggestion
    }

    public var message: String {
        "\(service) refused to \(operation) (HTTP \(status))" + (details.isEmpty ? "" : ": " + details[0])
    }

    public var info: [(key: String, value: String)] {
        var facts: [(key: String, value: String)] = [("status", String(status))]
        for (index, detail) in details.enumerated() where index > 0 || details.count > 1 {
            facts.append(("error \(index + 1)", detail))
        }
        return facts
    }
}

/// Every problem preflight found before any upload, reported together.
public struct StorePreflightError: ReportableError {
    public var target: String
    public var underlyingErrors: [any Error]

    public init(target: String, problems: [any Error]) {
        self.target = target
        self.underlyingErrors = problems
    }

    public var message: String {
        "cannot upload to \(target): \(underlyingErrors.count) problem\(underlyingErrors.count == 1 ? "" : "s") found before anything was sent"
    }
}

/// Processing at the store ended in failure, with the store's own errors and warnings.
public struct StoreProcessingError: ReportableError {
    public var message: String
    public var errors: [String]
    public var warnings: [String]
    public var suggestion: String?

    public init(_ message: String, errors: [String], warnings: [String] = [], suggestion: String? = nil) {
        self.message = message
        self.errors = errors
        self.warnings = warnings
        self.suggestion = suggestion
    }

    public var info: [(key: String, value: String)] {
        errors.map { ("error", $0) } + warnings.map { ("warning", $0) }
    }
}
