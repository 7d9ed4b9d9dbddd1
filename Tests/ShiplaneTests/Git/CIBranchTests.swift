import Foundation
import Testing
import Shiplane

/// Which branch each CI's variables name, and which builds name none (tags).
@Suite("The branch a CI checked out, from its variables", .offThePool)
struct CIBranchTests {
    @Test(arguments: [
        (["GITHUB_ACTIONS": "true", "GITHUB_REF_NAME": "main", "GITHUB_REF_TYPE": "branch"], "main"),
        (["GITHUB_ACTIONS": "true", "GITHUB_REF_NAME": "main", "GITHUB_REF": "refs/heads/main"], "main"),
        (["GITHUB_ACTIONS": "true", "GITHUB_REF_NAME": "v1.0.0", "GITHUB_REF_TYPE": "tag"], nil),
        (["GITHUB_ACTIONS": "true", "GITHUB_REF_NAME": "v1.0.0", "GITHUB_REF": "refs/tags/v1.0.0"], nil),
        (["GITHUB_ACTIONS": "true", "GITHUB_HEAD_REF": "feature/a", "GITHUB_REF_NAME": "3/merge", "GITHUB_REF_TYPE": "branch"], "feature/a"),
        (["GITLAB_CI": "true", "CI_COMMIT_BRANCH": "main"], "main"),
        (["GITLAB_CI": "true", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "feature/a"], "feature/a"),
        (["GITLAB_CI": "true", "CI_COMMIT_TAG": "v1.0.0", "CI_COMMIT_REF_NAME": "v1.0.0"], nil),
        (["BITBUCKET_BUILD_NUMBER": "1", "BITBUCKET_BRANCH": "main"], "main"),
        (["CIRCLECI": "true", "CIRCLE_BRANCH": "main"], "main"),
        (["BUILDKITE": "true", "BUILDKITE_BRANCH": "main"], "main"),
        (["BUILDKITE": "true", "BUILDKITE_BRANCH": "v1.0.0", "BUILDKITE_TAG": "v1.0.0"], nil),
        (["JENKINS_URL": "http://j/", "BRANCH_NAME": "main", "GIT_BRANCH": "origin/other"], "main"),
        (["JENKINS_URL": "http://j/", "GIT_BRANCH": "origin/release/2.x"], "release/2.x"),
        // A multibranch tag build names the tag in BRANCH_NAME: no branch; a pull request's, PR-N.
        (["JENKINS_URL": "http://j/", "BRANCH_NAME": "v1.0.0", "TAG_NAME": "v1.0.0"], nil),
        (["JENKINS_URL": "http://j/", "BRANCH_NAME": "PR-3", "CHANGE_ID": "3", "CHANGE_BRANCH": "feature/a"], "feature/a"),
        (["TF_BUILD": "True", "BUILD_SOURCEBRANCH": "refs/heads/release/2.x"], "release/2.x"),
        (["TF_BUILD": "True", "BUILD_SOURCEBRANCH": "refs/tags/v1.0.0"], nil),
        (["TF_BUILD": "True", "BUILD_SOURCEBRANCH": "refs/pull/3/merge", "SYSTEM_PULLREQUEST_SOURCEBRANCH": "refs/heads/feature/a"], "feature/a"),
        (["TRAVIS": "true", "TRAVIS_BRANCH": "main", "TRAVIS_PULL_REQUEST_BRANCH": ""], "main"),
        (["TRAVIS": "true", "TRAVIS_BRANCH": "main", "TRAVIS_PULL_REQUEST_BRANCH": "feature/a"], "feature/a"),
        (["TRAVIS": "true", "TRAVIS_BRANCH": "v1.0.0", "TRAVIS_TAG": "v1.0.0"], nil),
        (["CI_SYSTEM_NAME": "woodpecker", "CI_COMMIT_BRANCH": "main"], "main"),
        (["DRONE": "true", "DRONE_BRANCH": "main"], "main"),
        (["DRONE": "true", "DRONE_BRANCH": "main", "DRONE_TAG": "v1.0.0"], nil),
        (["SHIPLANE_BRANCH": "release/3.x", "GITLAB_CI": "true", "CI_COMMIT_BRANCH": "main"], "release/3.x"),
        // The CI whose marker is set wins over another's stray variable.
        (["GITLAB_CI": "true", "CI_COMMIT_BRANCH": "main", "GIT_BRANCH": "origin/other"], "main"),
        ([:], nil),
    ] as [([String: String], String?)])
    func theCIsVariablesNameTheBranch(_ variables: [String: String], _ expected: String?) {
        #expect(LaneEnvironment(variables: variables).ciBranch?.name == expected)
    }

    @Test func theSourceNamesTheVariableAndTheCI() {
        let branch = LaneEnvironment(variables: ["GITLAB_CI": "true", "CI_COMMIT_BRANCH": "main"]).ciBranch
        #expect(branch?.source == "CI_COMMIT_BRANCH (GitLab CI)")
    }

    /// A record written before detached commits existed names a branch; one written for a detached
    /// HEAD names none. Both decode, and the second round-trips without a branch.
    @Test func commitRecordsWithAndWithoutABranchDecode() throws {
        let old = #"{"branch":"main","parent":"abc","message":"chore(release): 1.2.4","commit":"def"}"#
        let detached = #"{"parent":"abc","message":"chore(release): 1.2.4","commit":"def"}"#
        #expect(try JSONDecoder().decode(CommitMade.self, from: Data(old.utf8)).branch == "main")
        let decoded = try JSONDecoder().decode(CommitMade.self, from: Data(detached.utf8))
        #expect(decoded == CommitMade(branch: nil, parent: "abc", message: "chore(release): 1.2.4", commit: "def"))
        let again = try JSONDecoder().decode(CommitMade.self, from: JSONEncoder().encode(decoded))
        #expect(again == decoded)
    }
}

/// Which variables make a pipeline a pull request's, for each CI, and which do not (a branch
/// build's `false`, an empty variable, another CI's variable in a job of a marked CI).
@Suite("A pull-request pipeline, from the CI's variables", .offThePool)
struct CIPullRequestTests {
    @Test(arguments: [
        (["GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request"], "GITHUB_EVENT_NAME=pull_request"),
        (["GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request_review", "GITHUB_REF": "refs/pull/3/merge"], "GITHUB_EVENT_NAME=pull_request_review"),
        (["GITHUB_ACTIONS": "true", "GITHUB_REF": "refs/pull/3/merge"], "GITHUB_REF=refs/pull/3/merge"),
        (["GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/main", "GITHUB_HEAD_REF": ""], nil),
        (["GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "workflow_dispatch", "GITHUB_REF": "refs/heads/main"], nil),
        (["GITLAB_CI": "true", "CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_IID": "3"], "CI_PIPELINE_SOURCE=merge_request_event"),
        (["GITLAB_CI": "true", "CI_PIPELINE_SOURCE": "external_pull_request_event"], "CI_PIPELINE_SOURCE=external_pull_request_event"),
        (["GITLAB_CI": "true", "CI_PIPELINE_SOURCE": "push", "CI_COMMIT_BRANCH": "main"], nil),
        (["GITLAB_CI": "true", "CI_PIPELINE_SOURCE": "web", "CHANGE_ID": "3"], nil),
        (["BITBUCKET_BUILD_NUMBER": "1", "BITBUCKET_PR_ID": "3"], "BITBUCKET_PR_ID=3"),
        (["BUILDKITE": "true", "BUILDKITE_PULL_REQUEST": "false"], nil),
        (["BUILDKITE": "true", "BUILDKITE_PULL_REQUEST": "3"], "BUILDKITE_PULL_REQUEST=3"),
        (["CIRCLECI": "true", "CIRCLE_PR_NUMBER": "3"], "CIRCLE_PR_NUMBER=3"),
        (["JENKINS_URL": "http://j/", "CHANGE_ID": "3"], "CHANGE_ID=3"),
        (["JENKINS_URL": "http://j/", "BRANCH_NAME": "main"], nil),
        (["TF_BUILD": "True", "SYSTEM_PULLREQUEST_PULLREQUESTNUMBER": "3"], "SYSTEM_PULLREQUEST_PULLREQUESTNUMBER=3"),
        (["TF_BUILD": "True", "BUILD_REASON": "IndividualCI"], nil),
        (["CI_SYSTEM_NAME": "woodpecker", "CI_PIPELINE_EVENT": "pull_request_closed"], "CI_PIPELINE_EVENT=pull_request_closed"),
        (["CI_SYSTEM_NAME": "woodpecker", "CI_PIPELINE_EVENT": "push"], nil),
        (["TRAVIS": "true", "TRAVIS_PULL_REQUEST": "false"], nil),
        (["DRONE": "true", "DRONE_BUILD_EVENT": "push"], nil),
        (["BITRISE_IO": "true", "BITRISE_PULL_REQUEST": "3"], "BITRISE_PULL_REQUEST=3"),
        // No CI marker: every CI's variables count.
        (["CHANGE_ID": "3"], "CHANGE_ID=3"),
        ([:], nil),
    ] as [([String: String], String?)])
    func theCIsVariablesSayWhenAPipelineIsAPullRequests(_ variables: [String: String], _ expected: String?) {
        #expect(LaneEnvironment(variables: variables).ciPullRequest?.variable == expected)
    }

    @Test func theOverrideIsOneAndOnlyOne() {
        let pullRequest = ["GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request"]
        #expect(LaneEnvironment(variables: pullRequest).refusingPullRequest?.ci == "GitHub Actions")
        #expect(LaneEnvironment(variables: pullRequest.merging(["SHIPLANE_ALLOW_PULL_REQUEST": "1"]) { $1 }).refusingPullRequest == nil)
        #expect(LaneEnvironment(variables: pullRequest.merging(["SHIPLANE_ALLOW_PULL_REQUEST": "true"]) { $1 }).refusingPullRequest != nil)
    }
}
