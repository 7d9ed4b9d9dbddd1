import Foundation
internal import Git

/// Who a commit or tag made in CI is by when nothing configures an identity: a fresh runner has
/// no `user.name` or `user.email`, and a release job should not need a setup step for them.
///
/// `SHIPLANE_GIT_NAME` and `SHIPLANE_GIT_EMAIL` choose it; otherwise the CI's own user where it
/// names one (GitHub's actor with its noreply address, GitLab's user), else `shiplane[bot]`.
/// Outside CI a missing identity stays an error (`MissingGitIdentity`).
struct CIIdentity: Equatable {
    var name: String
    var email: String
    /// Where it came from, for the log line (`GITHUB_ACTOR (GitHub Actions)`).
    var source: String

    static let nameVariable = "SHIPLANE_GIT_NAME"
    static let emailVariable = "SHIPLANE_GIT_EMAIL"
    static let botName = "shiplane[bot]"
    /// A reserved top-level domain (RFC 2606): no mail goes anywhere.
    static let botEmail = "shiplane-bot@noreply.invalid"

    /// The identity for a run in CI, or nil outside CI (`CIVariables.detectedCI`).
    static func read(from variables: [String: String]) -> CIIdentity? {
        guard let ci = CIVariables.detectedCI(variables) else { return nil }
        var found = CIIdentity(name: botName, email: botEmail, source: "Shiplane's default in CI (\(ci))")
        if let actor = CIVariables.value("GITHUB_ACTOR", variables) {
            // GitHub's noreply address for the user: ID+NAME@users.noreply.HOST (the ID form
            // links the commit to the account even after a rename).
            var host = "github.com"
            if let server = CIVariables.value("GITHUB_SERVER_URL", variables), let named = URL(string: server)?.host { host = named }
            let user = CIVariables.value("GITHUB_ACTOR_ID", variables).map { "\($0)+\(actor)" } ?? actor
            found = CIIdentity(name: actor, email: "\(user)@users.noreply.\(host)", source: "GITHUB_ACTOR (GitHub Actions)")
        } else if let name = CIVariables.value("GITLAB_USER_NAME", variables), let email = CIVariables.value("GITLAB_USER_EMAIL", variables) {
            found = CIIdentity(name: name, email: email, source: "GITLAB_USER_NAME and GITLAB_USER_EMAIL (GitLab CI)")
        }
        let name = CIVariables.value(nameVariable, variables)
        let email = CIVariables.value(emailVariable, variables)
        if name != nil || email != nil {
            found = CIIdentity(name: name ?? found.name, email: email ?? found.email,
                               source: [name.map { _ in nameVariable }, email.map { _ in emailVariable }].compactMap { $0 }.joined(separator: " and "))
        }
        return found
    }
}

/// No git identity is configured and the run is not in CI: the exact lines that set one.
package struct MissingGitIdentity: ReportableError {
    /// True when no name is set, and when no email is set.
    var name: Bool
    var email: Bool
    /// What needed it (`commit`, `tag`).
    var purpose: String

    package var message: String {
        let missing = [name ? "user.name" : nil, email ? "user.email" : nil].compactMap { $0 }.joined(separator: " and ")
        return "no git identity to \(purpose) with: \(missing) \(name && email ? "are" : "is") not set"
    }

    /// The lines to run, one per missing setting.
    package var info: [(key: String, value: String)] {
        var lines: [(key: String, value: String)] = []
        if name { lines.append(("run", #"git config user.name "Your Name""#)) }
        if email { lines.append(("run", #"git config user.email "you@example.com""#)) }
        return lines
    }

    package var suggestion: String? {
        "run the git config line\(name && email ? "s" : "") above in the repository (add --global for every repository), "
            + "or set GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL; "
            + "in CI (CI set, or a CI's own variables) Shiplane commits as \(CIIdentity.botName) or the CI's user by itself"
    }

    /// A machine that is not set up, like a missing `swiftc`.
    package var category: ErrorCategory { .environment }
}

extension StepContext {
    /// The signatures this step commits or tags with, one per role: git's identity (the
    /// environment, then git config), or in CI with none configured the CI's (`CIIdentity`),
    /// which the step says in its log.
    /// - Throws: `MissingGitIdentity` outside CI; `GitError` when git config cannot be read.
    func signatures(_ roles: [Signature.Role], in repository: Repository, for purpose: String) throws -> [Signature] {
        var variables = lane.environment.variables
        var substituted: CIIdentity?
        for role in roles {
            let configured = try repository.configuredIdentity(environment: variables, role: role)
            guard configured.name == nil || configured.email == nil else { continue }
            guard let identity = CIIdentity.read(from: variables) else {
                throw MissingGitIdentity(name: configured.name == nil, email: configured.email == nil, purpose: purpose)
            }
            let prefix = role == .author ? "GIT_AUTHOR_" : "GIT_COMMITTER_"
            variables[prefix + "NAME"] = configured.name ?? identity.name
            variables[prefix + "EMAIL"] = configured.email ?? identity.email
            substituted = identity
        }
        if let substituted {
            log("no git identity is configured: the \(purpose) is by \(substituted.name) <\(substituted.email)>, from \(substituted.source); "
                + "set \(CIIdentity.nameVariable) and \(CIIdentity.emailVariable) (or git config user.name and user.email) to choose another")
        }
        return try roles.map { try repository.signature(environment: variables, role: $0) }
    }
}
