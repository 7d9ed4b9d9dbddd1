import Foundation

/// The branch a CI checked out, read from the CI's own variables: CI checkouts are usually a
/// detached HEAD, so the branch a release commit goes to can only come from there.
public struct CIBranch: Sendable, Equatable {
    /// The branch's short name (`main`, `release/1.x`).
    public var name: String
    /// Where it was read: the variable, and the CI it belongs to (`CI_COMMIT_BRANCH (GitLab CI)`).
    public var source: String

    /// One CI's way of naming the checked-out branch.
    struct Reader: Sendable {
        /// The CI's name, as said in messages.
        var ci: String
        /// A variable only this CI sets: its readers go first when it is set.
        var marker: String
        /// The variables read, for messages.
        var variables: [String]
        /// The branch and the variable it came from, or nil when this CI names no branch (a tag
        /// or a pull request build without one).
        var read: @Sendable ([String: String]) -> (name: String, variable: String)?
    }

    /// Every CI Shiplane knows, in the order they are tried when none of their markers is set.
    static let readers: [Reader] = [
        Reader(ci: "GitHub Actions", marker: "GITHUB_ACTIONS", variables: ["GITHUB_HEAD_REF", "GITHUB_REF_NAME"]) { variables in
            // Pull requests: the source branch. Otherwise the ref, when it is a branch (a tag
            // workflow's GITHUB_REF_NAME is the tag).
            if let head = value("GITHUB_HEAD_REF", variables) { return (head, "GITHUB_HEAD_REF") }
            guard let name = value("GITHUB_REF_NAME", variables) else { return nil }
            if let type = value("GITHUB_REF_TYPE", variables) { return type == "branch" ? (name, "GITHUB_REF_NAME") : nil }
            if let ref = value("GITHUB_REF", variables) { return ref.hasPrefix("refs/heads/") ? (name, "GITHUB_REF_NAME") : nil }
            return nil
        },
        Reader(ci: "GitLab CI", marker: "GITLAB_CI", variables: ["CI_COMMIT_BRANCH", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"]) { variables in
            first(["CI_COMMIT_BRANCH", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"], variables)
        },
        Reader(ci: "Bitbucket Pipelines", marker: "BITBUCKET_BUILD_NUMBER", variables: ["BITBUCKET_BRANCH"]) { first(["BITBUCKET_BRANCH"], $0) },
        Reader(ci: "CircleCI", marker: "CIRCLECI", variables: ["CIRCLE_BRANCH"]) { first(["CIRCLE_BRANCH"], $0) },
        Reader(ci: "Buildkite", marker: "BUILDKITE", variables: ["BUILDKITE_BRANCH"]) { variables in
            value("BUILDKITE_TAG", variables) == nil ? first(["BUILDKITE_BRANCH"], variables) : nil
        },
        Reader(ci: "Azure Pipelines", marker: "TF_BUILD", variables: ["SYSTEM_PULLREQUEST_SOURCEBRANCH", "BUILD_SOURCEBRANCH"]) { variables in
            // Full ref names: only refs/heads/ names a branch (refs/tags/, refs/pull/ do not).
            for variable in ["SYSTEM_PULLREQUEST_SOURCEBRANCH", "BUILD_SOURCEBRANCH"] {
                guard let ref = value(variable, variables) else { continue }
                return ref.hasPrefix("refs/heads/") ? (String(ref.dropFirst("refs/heads/".count)), variable) : nil
            }
            return nil
        },
        Reader(ci: "Travis CI", marker: "TRAVIS", variables: ["TRAVIS_PULL_REQUEST_BRANCH", "TRAVIS_BRANCH"]) { variables in
            // A pull request build's TRAVIS_BRANCH is the target; a tag build's is the tag.
            if let source = value("TRAVIS_PULL_REQUEST_BRANCH", variables) { return (source, "TRAVIS_PULL_REQUEST_BRANCH") }
            return value("TRAVIS_TAG", variables) == nil ? first(["TRAVIS_BRANCH"], variables) : nil
        },
        // Pull requests: the source branch (the other variable names the target).
        Reader(ci: "Woodpecker", marker: "CI_SYSTEM_NAME", variables: ["CI_COMMIT_SOURCE_BRANCH", "CI_COMMIT_BRANCH"]) {
            first(["CI_COMMIT_SOURCE_BRANCH", "CI_COMMIT_BRANCH"], $0)
        },
        Reader(ci: "Drone", marker: "DRONE", variables: ["DRONE_SOURCE_BRANCH", "DRONE_BRANCH"]) { variables in
            value("DRONE_TAG", variables) == nil ? first(["DRONE_SOURCE_BRANCH", "DRONE_BRANCH"], variables) : nil
        },
        Reader(ci: "Bitrise", marker: "BITRISE_IO", variables: ["BITRISE_GIT_BRANCH"]) { first(["BITRISE_GIT_BRANCH"], $0) },
        Reader(ci: "Jenkins", marker: "JENKINS_URL", variables: ["CHANGE_BRANCH", "BRANCH_NAME", "GIT_BRANCH"]) { variables in
            // Multibranch pipelines set BRANCH_NAME; the git plugin sets GIT_BRANCH as origin/NAME.
            // A multibranch tag build sets BRANCH_NAME to the tag (with TAG_NAME): no branch. A
            // pull request's build sets it to PR-N, and its source branch in CHANGE_BRANCH.
            guard value("TAG_NAME", variables) == nil else { return nil }
            if let source = value("CHANGE_BRANCH", variables) { return (source, "CHANGE_BRANCH") }
            if let name = value("BRANCH_NAME", variables) { return (name, "BRANCH_NAME") }
            guard var name = value("GIT_BRANCH", variables) else { return nil }
            for prefix in ["refs/remotes/origin/", "remotes/origin/", "origin/", "refs/heads/"] where name.hasPrefix(prefix) {
                name.removeFirst(prefix.count)
                break
            }
            return (name, "GIT_BRANCH")
        },
    ]

    /// The variable named explicitly: set it where no CI variable says the branch.
    static let explicitVariable = "SHIPLANE_BRANCH"

    /// The branch the environment names: `SHIPLANE_BRANCH`, else the variables of the CI whose
    /// marker is set, else those of any CI, in `readers` order.
    static func read(from variables: [String: String]) -> CIBranch? {
        if let name = value(explicitVariable, variables) { return CIBranch(name: name, source: explicitVariable) }
        let marked = readers.filter { value($0.marker, variables) != nil }
        for reader in marked + readers.filter({ value($0.marker, variables) == nil }) {
            if let found = reader.read(variables) { return CIBranch(name: found.name, source: "\(found.variable) (\(reader.ci))") }
        }
        return nil
    }

    /// Every variable looked at, for a message that says where Shiplane looked.
    static var variablesLookedAt: [String] {
        var names = [explicitVariable]
        for reader in readers { for name in reader.variables where !names.contains(name) { names.append(name) } }
        return names
    }

    private static func value(_ name: String, _ variables: [String: String]) -> String? { CIVariables.value(name, variables) }

    private static func first(_ names: [String], _ variables: [String: String]) -> (name: String, variable: String)? {
        CIVariables.first(names, variables)
    }
}

extension LaneEnvironment {
    /// The branch CI checked out, from the CI's own variables (or `SHIPLANE_BRANCH`), for runs on
    /// a detached HEAD; nil when none names one (`CIBranch.read`).
    public var ciBranch: CIBranch? { CIBranch.read(from: variables) }
}
