import Foundation

/// An app package (IPA or AAB) that cannot be uploaded as it is: missing, not a zip, or without
/// the metadata the store needs.
package struct StorePackageError: ReportableError {
    /// The package's path.
    package var path: String
    /// What is wrong with it.
    package var problem: String
    /// How to make a package that can be uploaded, when known.
    package var suggestion: String?

    /// Creates the error for the package at `path`.
    package init(path: String, problem: String, suggestion: String? = nil) {
        self.path = path
        self.problem = problem
        self.suggestion = suggestion
    }

    /// The path and the problem.
    package var message: String { "\(path): \(problem)" }
}

/// A store package whose file holds other bytes than its artifact's record: changed after the
/// step that made it (rebuilt, re-signed, replaced). Nothing was sent.
package struct StorePackageChanged: ReportableError {
    /// The package's path, as the artifact names it.
    package var path: String
    /// The SHA-256 the artifact records.
    package var recorded: String
    /// The SHA-256 the file holds now.
    package var found: String

    package var message: String { "\(path) holds sha256:\(found), but the run's artifact for it records sha256:\(recorded): nothing was sent" }
    package var suggestion: String? {
        "the file changed after the step that made it: build it again from the release's commit to get the recorded bytes, "
            + "or, to upload these bytes, register them with lane.artifact(\"\(path)\") and pass that artifact"
    }
    package var info: [(key: String, value: String)] { [("file", path), ("recorded", "sha256:" + recorded), ("found", "sha256:" + found)] }
}

/// Store credentials that are missing or unusable. Never carries the secret itself.
package struct StoreCredentialsError: ReportableError {
    /// What is missing or unusable; never the secret.
    package var message: String
    /// Where to get or how to fix the credentials.
    package var suggestion: String?

    /// Creates the error; the message must not contain the secret.
    package init(_ message: String, suggestion: String? = nil) {
        self.message = message
        self.suggestion = suggestion
    }
}

/// A store API answered with an error: the operation, the status and the store's own error
/// list (Apple's `errors[]` with code, title and detail; Google's `error.message`), redacted.
package struct StoreAPIError: ReportableError {
    /// The store: `App Store Connect` or `Google Play`.
    package var service: String
    /// What was asked of it (`create the build upload`).
    package var operation: String
    /// The HTTP status of the answer.
    package var status: Int
    /// The store's errors, one line each.
    package var details: [String]
    /// What to do about it, when the status or the store's code says.
    package var suggestion: String?

    /// Creates the error from a store's answer; `details` must already be redacted.
    package init(service: String, operation: String, status: Int, details: [String], suggestion: String? = nil) {
        self.service = service
        self.operation = operation
        self.status = status
        self.details = details
        self.suggestion = suggestion
    }

    /// The store, the operation, the status and the store's first error.
    package var message: String {
        "\(service) refused to \(operation) (HTTP \(status))" + (details.isEmpty ? "" : ": " + details[0])
    }

    /// The status and each of the store's errors.
    package var info: [(key: String, value: String)] {
        var facts: [(key: String, value: String)] = [("status", String(status))]
        for (index, detail) in details.enumerated() where index > 0 || details.count > 1 {
            facts.append(("error \(index + 1)", detail))
        }
        return facts
    }
}

/// Every problem preflight found before any upload, reported together.
package struct StorePreflightError: ReportableError {
    /// Where the upload was going: `TestFlight` or `Google Play`.
    package var target: String
    /// Every problem found.
    package var underlyingErrors: [any Error]

    /// Creates the error holding every problem preflight found for `target`.
    package init(target: String, problems: [any Error]) {
        self.target = target
        self.underlyingErrors = problems
    }

    /// Says how many problems stopped the upload before anything was sent.
    package var message: String {
        "cannot upload to \(target): \(underlyingErrors.count) problem\(underlyingErrors.count == 1 ? "" : "s") found before anything was sent"
    }
}

/// Processing at the store ended in failure, with the store's own errors and warnings.
package struct StoreProcessingError: ReportableError {
    /// What failed, in one line.
    package var message: String
    /// The store's errors, one line each.
    package var errors: [String]
    /// The store's warnings, one line each.
    package var warnings: [String]
    /// What to do about it, when known.
    package var suggestion: String?

    /// Creates the error with the store's errors and warnings.
    package init(_ message: String, errors: [String], warnings: [String] = [], suggestion: String? = nil) {
        self.message = message
        self.errors = errors
        self.warnings = warnings
        self.suggestion = suggestion
    }

    /// Each error, then each warning.
    package var info: [(key: String, value: String)] {
        errors.map { ("error", $0) } + warnings.map { ("warning", $0) }
    }
}
