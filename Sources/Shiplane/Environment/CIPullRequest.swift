import Foundation

/// The pull or merge request a CI pipeline was started for, read from the CI's own variables.
///
/// Such a pipeline checks out a commit that is not on any branch yet (GitHub's synthetic merge
/// commit, GitLab's merge-request ref) and runs code from someone's proposal: a release from it
/// would publish what nobody merged. Runs refuse every effect there (`LaneContext.refusingEffects`)
/// and a dry run says what the release would do.
package struct CIPullRequest: Sendable, Equatable {
    /// The variable that says so, with the value seen (`GITHUB_EVENT_NAME=pull_request`).
    package var variable: String
    /// The CI it belongs to (`GitHub Actions`).
    package var ci: String

    /// One CI's way of saying a pipeline runs for a pull or merge request.
    struct Reader: Sendable {
        /// The CI's name, as said in messages.
        var ci: String
        /// A variable only this CI sets (as `CIBranch.Reader.marker`).
        var marker: String
        /// The variable and its value when this pipeline is a pull request's, else nil.
        var read: @Sendable ([String: String]) -> String?
    }

    /// Every CI Shiplane knows, with what marks its pull-request pipelines (each CI's documentation).
    static let readers: [Reader] = [
        Reader(ci: "GitHub Actions", marker: "GITHUB_ACTIONS") { variables in
            // pull_request, pull_request_target, pull_request_review, pull_request_review_comment.
            if let event = CIVariables.value("GITHUB_EVENT_NAME", variables), event.hasPrefix("pull_request") {
                return "GITHUB_EVENT_NAME=\(event)"
            }
            if let ref = CIVariables.value("GITHUB_REF", variables), ref.hasPrefix("refs/pull/") { return "GITHUB_REF=\(ref)" }
            // Set for pull-request events only.
            return set(["GITHUB_HEAD_REF"], variables)
        },
        Reader(ci: "GitLab CI", marker: "GITLAB_CI") { variables in
            if let source = CIVariables.value("CI_PIPELINE_SOURCE", variables),
               ["merge_request_event", "external_pull_request_event"].contains(source) {
                return "CI_PIPELINE_SOURCE=\(source)"
            }
            // CI_MERGE_REQUEST_* and CI_EXTERNAL_PULL_REQUEST_* exist in such pipelines only.
            return set(["CI_MERGE_REQUEST_IID", "CI_EXTERNAL_PULL_REQUEST_IID", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"], variables)
        },
        Reader(ci: "Bitbucket Pipelines", marker: "BITBUCKET_BUILD_NUMBER") { set(["BITBUCKET_PR_ID"], $0) },
        Reader(ci: "CircleCI", marker: "CIRCLECI") { set(["CIRCLE_PULL_REQUEST", "CIRCLE_PR_NUMBER"], $0) },
        Reader(ci: "Buildkite", marker: "BUILDKITE") { variables in
            // "false" on a branch build; the pull request's number on a pull request's.
            guard let number = CIVariables.value("BUILDKITE_PULL_REQUEST", variables), number != "false" else { return nil }
            return "BUILDKITE_PULL_REQUEST=\(number)"
        },
        Reader(ci: "Azure Pipelines", marker: "TF_BUILD") { variables in
            if let found = set(["SYSTEM_PULLREQUEST_PULLREQUESTID", "SYSTEM_PULLREQUEST_PULLREQUESTNUMBER"], variables) { return found }
            if let reason = CIVariables.value("BUILD_REASON", variables), reason.lowercased() == "pullrequest" { return "BUILD_REASON=\(reason)" }
            return nil
        },
        Reader(ci: "Travis CI", marker: "TRAVIS") { variables in
            guard let number = CIVariables.value("TRAVIS_PULL_REQUEST", variables), number != "false" else { return nil }
            return "TRAVIS_PULL_REQUEST=\(number)"
        },
        Reader(ci: "Woodpecker", marker: "CI_SYSTEM_NAME") { variables in
            // pull_request, and pull_request_closed since Woodpecker 3.
            if let event = CIVariables.value("CI_PIPELINE_EVENT", variables), event.hasPrefix("pull_request") {
                return "CI_PIPELINE_EVENT=\(event)"
            }
            return set(["CI_COMMIT_PULL_REQUEST"], variables)
        },
        Reader(ci: "Drone", marker: "DRONE") { variables in
            if let event = CIVariables.value("DRONE_BUILD_EVENT", variables), event == "pull_request" { return "DRONE_BUILD_EVENT=\(event)" }
            return set(["DRONE_PULL_REQUEST"], variables)
        },
        Reader(ci: "Bitrise", marker: "BITRISE_IO") { set(["BITRISE_PULL_REQUEST"], $0) },
        // Multibranch pipelines set CHANGE_ID for a pull request's build (BRANCH_NAME is PR-N).
        Reader(ci: "Jenkins", marker: "JENKINS_URL") { set(["CHANGE_ID"], $0) },
    ]

    /// Set to `1` to let a run change things in a pull-request pipeline all the same.
    package static let allowVariable = "SHIPLANE_ALLOW_PULL_REQUEST"

    /// The pull request the environment names: with a CI's marker set, only the marked CIs'
    /// variables count (another CI's name in a job's own variables is not that CI); with none,
    /// every CI's.
    static func read(from variables: [String: String]) -> CIPullRequest? {
        let marked = readers.filter { CIVariables.value($0.marker, variables) != nil }
        for reader in marked.isEmpty ? readers : marked {
            if let found = reader.read(variables) { return CIPullRequest(variable: found, ci: reader.ci) }
        }
        return nil
    }

    /// `NAME=value` for the first of `names` that is set.
    private static func set(_ names: [String], _ variables: [String: String]) -> String? {
        CIVariables.first(names, variables).map { "\($0.variable)=\($0.name)" }
    }
}

extension LaneEnvironment {
    /// The pull or merge request this CI pipeline runs for, from the CI's own variables; nil
    /// outside one (`CIPullRequest.read`).
    package var ciPullRequest: CIPullRequest? { CIPullRequest.read(from: variables) }

    /// The pull request whose pipeline this is, unless `SHIPLANE_ALLOW_PULL_REQUEST=1` lets the
    /// run change things there all the same.
    package var refusingPullRequest: CIPullRequest? {
        variables[CIPullRequest.allowVariable] == "1" ? nil : ciPullRequest
    }
}

/// A run that would change something in a pull-request pipeline: refused before its first effect.
package struct PullRequestPipeline: ReportableError {
    /// What marks the pipeline.
    package var pullRequest: CIPullRequest
    /// The command that was run (`shiplane release --bump minor`), for the dry run's command line.
    package var command: String

    /// Creates the refusal of `command` in the pipeline `pullRequest` names.
    package init(pullRequest: CIPullRequest, command: String) {
        self.pullRequest = pullRequest
        self.command = command
    }

    /// Says where and why.
    package var message: String {
        "refusing to release from a pull-request pipeline (\(pullRequest.variable), \(pullRequest.ci)): nothing was changed"
    }

    /// The facts: the variable, and why a pull request's checkout is not a release.
    package var info: [(key: String, value: String)] {
        [
            ("seen", "\(pullRequest.variable) (\(pullRequest.ci))"),
            ("why", "a pull request's pipeline checks out a proposed change, not a branch's history: a release from it would commit, tag and publish what nobody merged"),
        ]
    }

    /// The dry run that shows the release there, and where the real one belongs.
    package var suggestion: String? {
        "run `\(command) --dry-run` in pull-request pipelines to see what the release would do; "
            + "release from the branch's own pipeline after the merge (or a tag pipeline); "
            + "set \(CIPullRequest.allowVariable)=1 only if this pipeline really must change things"
    }

    /// A pipeline that is not a release's is the wrong environment, like a detached HEAD with no branch.
    package var category: ErrorCategory { .environment }
}
