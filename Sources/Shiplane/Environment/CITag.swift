import Foundation

/// The tag a CI pipeline was started for, read from the CI's own variables: a tag pipeline checks
/// out the tagged commit detached, and only the variables say which tag started it.
public struct CITag: Sendable, Equatable {
    /// The tag's name (`v1.4.0`, `core-v2.0.0`).
    public var name: String
    /// Where it was read: the variable, and the CI it belongs to (`CI_COMMIT_TAG (GitLab CI)`).
    public var source: String

    /// Every CI Shiplane knows, with the variables that name the tag of a tag pipeline, in the
    /// order they are tried when none of their markers is set (as `CIBranch.readers`).
    static let readers: [CIBranch.Reader] = [
        CIBranch.Reader(ci: "GitHub Actions", marker: "GITHUB_ACTIONS", variables: ["GITHUB_REF_NAME", "GITHUB_REF"]) { variables in
            // GITHUB_REF_NAME is a branch in a branch workflow: only GITHUB_REF_TYPE (or the full
            // ref) says it is a tag.
            if let type = CIVariables.value("GITHUB_REF_TYPE", variables) {
                guard type == "tag", let name = CIVariables.value("GITHUB_REF_NAME", variables) else { return nil }
                return (name, "GITHUB_REF_NAME")
            }
            return CIVariables.stripping("refs/tags/", from: "GITHUB_REF", variables)
        },
        CIBranch.Reader(ci: "GitLab CI", marker: "GITLAB_CI", variables: ["CI_COMMIT_TAG"]) { CIVariables.first(["CI_COMMIT_TAG"], $0) },
        CIBranch.Reader(ci: "Bitbucket Pipelines", marker: "BITBUCKET_BUILD_NUMBER", variables: ["BITBUCKET_TAG"]) { CIVariables.first(["BITBUCKET_TAG"], $0) },
        CIBranch.Reader(ci: "CircleCI", marker: "CIRCLECI", variables: ["CIRCLE_TAG"]) { CIVariables.first(["CIRCLE_TAG"], $0) },
        CIBranch.Reader(ci: "Buildkite", marker: "BUILDKITE", variables: ["BUILDKITE_TAG"]) { CIVariables.first(["BUILDKITE_TAG"], $0) },
        CIBranch.Reader(ci: "Azure Pipelines", marker: "TF_BUILD", variables: ["BUILD_SOURCEBRANCH"]) {
            CIVariables.stripping("refs/tags/", from: "BUILD_SOURCEBRANCH", $0)
        },
        CIBranch.Reader(ci: "Travis CI", marker: "TRAVIS", variables: ["TRAVIS_TAG"]) { CIVariables.first(["TRAVIS_TAG"], $0) },
        CIBranch.Reader(ci: "Woodpecker", marker: "CI_SYSTEM_NAME", variables: ["CI_COMMIT_TAG"]) { CIVariables.first(["CI_COMMIT_TAG"], $0) },
        CIBranch.Reader(ci: "Drone", marker: "DRONE", variables: ["DRONE_TAG"]) { CIVariables.first(["DRONE_TAG"], $0) },
        CIBranch.Reader(ci: "Bitrise", marker: "BITRISE_IO", variables: ["BITRISE_GIT_TAG"]) { CIVariables.first(["BITRISE_GIT_TAG"], $0) },
        // Multibranch pipelines set TAG_NAME for a tag build.
        CIBranch.Reader(ci: "Jenkins", marker: "JENKINS_URL", variables: ["TAG_NAME"]) { CIVariables.first(["TAG_NAME"], $0) },
    ]

    /// The variable named explicitly: set it where no CI variable says the tag.
    static let explicitVariable = "SHIPLANE_TAG"

    /// The tag the environment names: `SHIPLANE_TAG`, else the variables of the CI whose marker
    /// is set, else those of any CI, in `readers` order.
    static func read(from variables: [String: String]) -> CITag? {
        if let name = CIVariables.value(explicitVariable, variables) { return CITag(name: name, source: explicitVariable) }
        let marked = readers.filter { CIVariables.value($0.marker, variables) != nil }
        for reader in marked + readers.filter({ CIVariables.value($0.marker, variables) == nil }) {
            if let found = reader.read(variables) { return CITag(name: found.name, source: "\(found.variable) (\(reader.ci))") }
        }
        return nil
    }

    /// Every variable looked at, for a message that says where Shiplane looked.
    static var variablesLookedAt: [String] {
        var names = [explicitVariable]
        for reader in readers { for name in reader.variables where !names.contains(name) { names.append(name) } }
        return names
    }
}

/// How CI variables are read: a variable that is unset, empty or blanks is not set.
enum CIVariables {
    /// The CI this process runs in, for messages: the one whose marker is set (`CIBranch.readers`:
    /// `GITHUB_ACTIONS`, `GITLAB_CI`, `JENKINS_URL`, …), else `CI=value` when `CI` is set to
    /// anything but `false` or `0`; nil outside CI.
    static func detectedCI(_ variables: [String: String]) -> String? {
        if let reader = CIBranch.readers.first(where: { value($0.marker, variables) != nil }) { return reader.ci }
        if let ci = value("CI", variables), !["false", "0"].contains(ci.lowercased()) { return "CI=\(ci)" }
        return nil
    }

    static func value(_ name: String, _ variables: [String: String]) -> String? {
        guard let value = variables[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    /// The first of `names` that is set, with its name.
    static func first(_ names: [String], _ variables: [String: String]) -> (name: String, variable: String)? {
        for name in names { if let found = value(name, variables) { return (found, name) } }
        return nil
    }

    /// A full ref variable's short name when it starts with `prefix` (`refs/tags/v1.4.0` → `v1.4.0`).
    static func stripping(_ prefix: String, from name: String, _ variables: [String: String]) -> (name: String, variable: String)? {
        guard let ref = value(name, variables), ref.hasPrefix(prefix), ref.count > prefix.count else { return nil }
        return (String(ref.dropFirst(prefix.count)), name)
    }
}

extension LaneEnvironment {
    /// The tag a tag pipeline was started for, from the CI's own variables (or `SHIPLANE_TAG`);
    /// nil when none names one (`CITag.read`).
    public var ciTag: CITag? { CITag.read(from: variables) }
}
