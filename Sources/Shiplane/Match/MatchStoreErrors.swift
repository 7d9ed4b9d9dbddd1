import Foundation

/// One file of a match store that could not be read, decrypted or encrypted: names the file.
package struct MatchFileProblem: ReportableError {
    package enum Reason: Equatable, Sendable {
        case wrongPassword
        case notEncrypted
        case truncated
        case alreadyEncrypted
        case unreadable(String)
        case symbolicLink
    }

    /// The file, relative to the folder it was read from.
    package var file: String
    package var reason: Reason

    package init(file: String, reason: Reason) {
        self.file = file
        self.reason = reason
    }

    package var message: String {
        switch reason {
        case .wrongPassword: "\(file): the password does not decrypt it (wrong password, or the file was changed after it was encrypted)"
        case .notEncrypted: "\(file): not encrypted by match (no Salted__ or match_encrypted_v2__ header)"
        case .truncated: "\(file): too short for match's encryption header (a damaged file)"
        case .alreadyEncrypted: "\(file): already encrypted by match (give the decrypted folder to encrypt)"
        case .unreadable(let why): "\(file): cannot be read: \(why)"
        case .symbolicLink: "\(file): a symbolic link (match stores hold regular files)"
        }
    }

    package init(from failure: MatchDecryptionFailure, file: String) {
        switch failure {
        case .notEncrypted: self.init(file: file, reason: .notEncrypted)
        case .truncated: self.init(file: file, reason: .truncated)
        case .wrongPassword: self.init(file: file, reason: .wrongPassword)
        }
    }
}

/// A match store operation that stopped: what failed and that nothing was written.
package struct MatchStoreError: ReportableError {
    package var message: String
    package var info: [(key: String, value: String)]
    package var suggestion: String?
    package var category: ErrorCategory
    package var underlyingErrors: [any Error]

    package init(
        _ message: String, info: [(key: String, value: String)] = [], suggestion: String? = nil,
        category: ErrorCategory = .failure, problems: [any Error] = []
    ) {
        self.message = message
        self.info = info
        self.suggestion = suggestion
        self.category = category
        self.underlyingErrors = problems
    }

    /// Files that did not decrypt or encrypt; nothing was written.
    static func files(_ problems: [MatchFileProblem], of total: Int, doing: String, folder: String) -> MatchStoreError {
        let wrongPassword = problems.contains { $0.reason == .wrongPassword }
        return MatchStoreError(
            "cannot \(doing): \(problems.count) of \(total) file\(total == 1 ? "" : "s") failed; nothing was written",
            info: [("folder", folder)],
            suggestion: wrongPassword
                ? "set MATCH_PASSWORD to the password the store was encrypted with (the one fastlane match uses)"
                : nil,
            problems: problems
        )
    }
}
