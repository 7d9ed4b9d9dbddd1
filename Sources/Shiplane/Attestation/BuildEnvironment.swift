import Foundation

/// Who is building, from the CI's own variables: the SLSA builder id, the invocation, the
/// workflow, and facts about the runner. Nothing here is secret (no tokens are read).
struct BuildEnvironment {
    var builderID: String
    var invocationID: String?
    /// The CI's workflow file and ref (`externalParameters.workflow`).
    var workflow: [String: String]
    /// Facts about the runner that shaped the build (`internalParameters`).
    var runner: [String: String]

    init(_ variables: [String: String]) {
        func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        if value("GITHUB_ACTIONS") == "true" || value("GITEA_ACTIONS") == "true" {
            let server = value("GITHUB_SERVER_URL") ?? "https://github.com"
            let repository = value("GITHUB_REPOSITORY") ?? ""
            builderID = value("GITHUB_WORKFLOW_REF").map { server + "/" + $0 } ?? server + "/" + repository
            invocationID = value("GITHUB_RUN_ID").map { "\(server)/\(repository)/actions/runs/\($0)/attempts/\(value("GITHUB_RUN_ATTEMPT") ?? "1")" }
            workflow = ["repository": server + "/" + repository, "ref": value("GITHUB_REF") ?? "", "path": value("GITHUB_WORKFLOW_REF").map { ref in
                String(ref.dropFirst(repository.count + 1).prefix { $0 != "@" })
            } ?? ""].filter { !$0.value.isEmpty }
            runner = ["os": value("RUNNER_OS"), "arch": value("RUNNER_ARCH"), "environment": value("RUNNER_ENVIRONMENT"),
                      "event": value("GITHUB_EVENT_NAME")].compactMapValues { $0 }
        } else if value("GITLAB_CI") == "true" {
            let server = value("CI_SERVER_URL") ?? "https://gitlab.com"
            builderID = "\(server)/\(value("CI_PROJECT_PATH") ?? "")/-/runners/\(value("CI_RUNNER_ID") ?? "unknown")"
            invocationID = value("CI_JOB_URL")
            workflow = ["repository": value("CI_PROJECT_URL"), "ref": value("CI_COMMIT_REF_NAME"), "path": value("CI_CONFIG_PATH") ?? ".gitlab-ci.yml"].compactMapValues { $0 }
            runner = ["description": value("CI_RUNNER_DESCRIPTION"), "tags": value("CI_RUNNER_TAGS"), "event": value("CI_PIPELINE_SOURCE")].compactMapValues { $0 }
        } else {
            // Not a CI Shiplane knows: a person's machine, which no one else can vouch for.
            builderID = "urn:shiplane:builder:local"
            invocationID = nil
            workflow = [:]
            runner = [:]
        }
    }
}
