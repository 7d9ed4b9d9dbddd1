import Foundation
import Testing
import Shiplane

/// Which tag each CI's variables name for a tag pipeline, and which builds name none (branches).
@Suite("The tag a CI pipeline was started for, from its variables", .offThePool)
struct CITagTests {
    @Test(arguments: [
        (["GITHUB_ACTIONS": "true", "GITHUB_REF_NAME": "v1.4.0", "GITHUB_REF_TYPE": "tag"], "v1.4.0"),
        (["GITHUB_ACTIONS": "true", "GITHUB_REF_NAME": "v1.4.0", "GITHUB_REF": "refs/tags/v1.4.0"], "v1.4.0"),
        (["GITHUB_ACTIONS": "true", "GITHUB_REF_NAME": "main", "GITHUB_REF_TYPE": "branch", "GITHUB_REF": "refs/heads/main"], nil),
        (["GITHUB_ACTIONS": "true", "GITHUB_REF_NAME": "v1.4.0", "GITHUB_REF": "refs/heads/v1.4.0"], nil),
        (["GITLAB_CI": "true", "CI_COMMIT_TAG": "v1.4.0", "CI_COMMIT_REF_NAME": "v1.4.0"], "v1.4.0"),
        (["GITLAB_CI": "true", "CI_COMMIT_BRANCH": "main", "CI_COMMIT_REF_NAME": "main"], nil),
        (["BITBUCKET_BUILD_NUMBER": "1", "BITBUCKET_TAG": "v1.4.0"], "v1.4.0"),
        (["BITBUCKET_BUILD_NUMBER": "1", "BITBUCKET_BRANCH": "main"], nil),
        (["CIRCLECI": "true", "CIRCLE_TAG": "v1.4.0"], "v1.4.0"),
        (["BUILDKITE": "true", "BUILDKITE_BRANCH": "v1.4.0", "BUILDKITE_TAG": "v1.4.0"], "v1.4.0"),
        (["BUILDKITE": "true", "BUILDKITE_BRANCH": "main", "BUILDKITE_TAG": ""], nil),
        (["TF_BUILD": "True", "BUILD_SOURCEBRANCH": "refs/tags/core-v2.0.0"], "core-v2.0.0"),
        (["TF_BUILD": "True", "BUILD_SOURCEBRANCH": "refs/heads/main"], nil),
        (["TRAVIS": "true", "TRAVIS_BRANCH": "v1.4.0", "TRAVIS_TAG": "v1.4.0"], "v1.4.0"),
        (["TRAVIS": "true", "TRAVIS_BRANCH": "main", "TRAVIS_TAG": ""], nil),
        (["CI_SYSTEM_NAME": "woodpecker", "CI_COMMIT_TAG": "v1.4.0"], "v1.4.0"),
        (["DRONE": "true", "DRONE_TAG": "v1.4.0", "DRONE_BRANCH": "main"], "v1.4.0"),
        (["BITRISE_IO": "true", "BITRISE_GIT_TAG": "v1.4.0"], "v1.4.0"),
        (["JENKINS_URL": "http://j/", "TAG_NAME": "v1.4.0"], "v1.4.0"),
        (["JENKINS_URL": "http://j/", "BRANCH_NAME": "main"], nil),
        (["SHIPLANE_TAG": "v2.0.0", "GITLAB_CI": "true", "CI_COMMIT_TAG": "v1.4.0"], "v2.0.0"),
        // The CI whose marker is set wins over another's stray variable.
        (["DRONE": "true", "DRONE_TAG": "v1.4.0", "CIRCLE_TAG": "v0.1.0"], "v1.4.0"),
        ([:], nil),
    ] as [([String: String], String?)])
    func theCIsVariablesNameTheTag(_ variables: [String: String], _ expected: String?) {
        #expect(LaneEnvironment(variables: variables).ciTag?.name == expected)
    }

    @Test func theSourceNamesTheVariableAndTheCI() {
        let tag = LaneEnvironment(variables: ["GITHUB_ACTIONS": "true", "GITHUB_REF_NAME": "v1.4.0", "GITHUB_REF_TYPE": "tag"]).ciTag
        #expect(tag?.source == "GITHUB_REF_NAME (GitHub Actions)")
    }
}
