import Foundation

/// The environment variables a run sees, and the secrets among them.
///
/// Built once by the CLI from the process environment (and dotenv files); tests build their own.
/// Variables whose names look secret (`*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*KEY*`, `*WEBHOOK*`)
/// are registered as secrets automatically, so their values are redacted from everything printed.
public struct LaneEnvironment: Sendable {
    /// Every variable by name.
    public private(set) var variables: [String: String]
    /// The values to redact, from secret-looking names and those added as secret.
    public private(set) var secretValues: Set<String>

    /// Creates an environment from variables; `extraSecrets` are redacted as well.
    public init(variables: [String: String], extraSecrets: [String] = []) {
        self.variables = variables
        self.secretValues = []
        for (name, value) in variables where Self.looksSecret(name) { addSecret(value) }
        for value in extraSecrets { addSecret(value) }
    }

    /// The value of a variable, or nil when it is not set.
    public subscript(name: String) -> String? { variables[name] }

    /// Sets a variable; `secret` marks its value for redaction.
    public mutating func set(_ name: String, _ value: String, secret: Bool = false) {
        variables[name] = value
        if secret || Self.looksSecret(name) { addSecret(value) }
    }

    /// Marks a value as secret; values shorter than 4 characters are ignored (they would redact
    /// ordinary words and numbers).
    public mutating func addSecret(_ value: String) {
        for part in SecretRedactor.withLines([value]) where part.count >= 4 { secretValues.insert(part) }
    }

    static func looksSecret(_ name: String) -> Bool {
        let upper = name.uppercased()
        return ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "_KEY", "APIKEY", "WEBHOOK", "CREDENTIAL", "SERVICE_ACCOUNT"]
            .contains { upper.contains($0) } || upper.hasSuffix("KEY")
    }

    /// The branch CI checked out, from the CI's own variables, for runs on a detached HEAD.
    ///
    /// GitHub Actions: `GITHUB_HEAD_REF` (pull requests) then `GITHUB_REF_NAME` when `GITHUB_REF_TYPE`
    /// is `branch`; GitLab: `CI_COMMIT_BRANCH`; Jenkins: `BRANCH_NAME`, `GIT_BRANCH`; CircleCI:
    /// `CIRCLE_BRANCH`; Bitrise: `BITRISE_GIT_BRANCH`; Buildkite: `BUILDKITE_BRANCH`.
    public var ciBranch: (name: String, variable: String)? {
        if let head = variables["GITHUB_HEAD_REF"], !head.isEmpty { return (head, "GITHUB_HEAD_REF") }
        if let name = variables["GITHUB_REF_NAME"], !name.isEmpty,
           (variables["GITHUB_REF_TYPE"] ?? "branch") == "branch" {
            return (name, "GITHUB_REF_NAME")
        }
        for variable in ["CI_COMMIT_BRANCH", "BRANCH_NAME", "CIRCLE_BRANCH", "BITRISE_GIT_BRANCH", "BUILDKITE_BRANCH", "GIT_BRANCH"] {
            if var name = variables[variable], !name.isEmpty {
                if variable == "GIT_BRANCH", name.hasPrefix("origin/") { name.removeFirst("origin/".count) }
                return (name, variable)
            }
        }
        return nil
    }
}
