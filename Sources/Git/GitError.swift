import Foundation
internal import CLibgit2

/// A failure reported by libgit2, read from `git_error_last()` right after the failing call.
public struct GitError: Error, Sendable, CustomStringConvertible {
    /// The broad kind of failure, from libgit2's return code.
    public enum Code: Sendable, Equatable {
        case notFound, exists, ambiguous, bareRepository, unbornBranch, notOwner
        case nonFastForward, rejected, authentication, certificate, conflict, locked
        case invalid, user, other(Int32)
        /// No author or committer name/email is configured.
        case missingIdentity
    }

    public var code: Code
    /// What Shiplane was doing ("open repository", "push refs/tags/v1.2.0").
    public var operation: String
    /// libgit2's own message.
    public var message: String

    public init(code: Code, operation: String, message: String) {
        self.code = code
        self.operation = operation
        self.message = message
    }

    public var description: String { "\(operation): \(message)" }

    init(result: Int32, operation: String) {
        var message = "libgit2 error \(result)"
        if let last = git_error_last(), let text = last.pointee.message {
            message = String(cString: text)
        }
        self.init(code: Code(result: result), operation: operation, message: message)
    }
}

extension GitError.Code {
    init(result: Int32) {
        switch result {
        case GIT_ENOTFOUND.rawValue: self = .notFound
        case GIT_EEXISTS.rawValue: self = .exists
        case GIT_EAMBIGUOUS.rawValue: self = .ambiguous
        case GIT_EBAREREPO.rawValue: self = .bareRepository
        case GIT_EUNBORNBRANCH.rawValue: self = .unbornBranch
        case GIT_EOWNER.rawValue: self = .notOwner
        case GIT_ENONFASTFORWARD.rawValue: self = .nonFastForward
        case GIT_EAUTH.rawValue: self = .authentication
        case GIT_ECERTIFICATE.rawValue: self = .certificate
        case GIT_ECONFLICT.rawValue, GIT_EMERGECONFLICT.rawValue: self = .conflict
        case GIT_ELOCKED.rawValue: self = .locked
        case GIT_EINVALIDSPEC.rawValue, GIT_EINVALID.rawValue: self = .invalid
        case GIT_EUSER.rawValue: self = .user
        default: self = .other(result)
        }
    }
}

extension GitError {
    /// This error with URL credentials (`https://user:token@host`) and every `secret` blanked out,
    /// for errors about remotes, whose libgit2 messages can quote the URL.
    func redacted(_ secrets: [String] = []) -> GitError {
        GitError(
            code: code, operation: redactingCredentials(in: operation, secrets: secrets),
            message: redactingCredentials(in: message, secrets: secrets))
    }
}

/// `text` with the user-info part of every URL (`scheme://user:password@`) removed and every
/// non-empty `secret` replaced by `***`.
func redactingCredentials(in text: String, secrets: [String] = []) -> String {
    var result = ""
    var rest = Substring(text)
    while let scheme = rest.range(of: "://") {
        result += rest[..<scheme.upperBound]
        rest = rest[scheme.upperBound...]
        // The authority ends at the first '/', whitespace or quote; user-info ends at its last '@'.
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "'" || $0 == "\"" || $0.isWhitespace } ?? rest.endIndex
        if let at = rest[..<authorityEnd].lastIndex(of: "@") {
            rest = rest[rest.index(after: at)...]
        }
    }
    result += rest
    for secret in secrets where !secret.isEmpty {
        result = result.replacingOccurrences(of: secret, with: "***")
    }
    return result
}

/// Throws the libgit2 error for a negative result code.
@inline(__always)
func check(_ result: Int32, _ operation: @autoclosure () -> String) throws {
    if result < 0 { throw GitError(result: result, operation: operation()) }
}
