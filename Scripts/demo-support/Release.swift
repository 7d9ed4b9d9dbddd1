import Foundation
import Shiplane

/// The demo's release: everything a release lane does, against local targets only.
struct Release: Lane {
    static let summary = "Bump, build, changelog, commit, tag, push, publish to a folder, notify"

    @Option(help: "major, minor, patch, auto (from the commits since the last release tag) or a version")
    var bump: VersionBump = .auto

    @Flag(help: "Fail after everything else, to show the rollback")
    var failAtEnd = false

    func run(_ lane: LaneContext) async throws {
        try lane.ensureGitBranch(matching: "main|release/.+")
        try lane.ensureGitStatusClean()
        try await lane.ensureTool("git", version: ">= 2.0")
        let version = try lane.bumpVersion(bump)
        let build = try lane.incrementBuildNumber()
        let archive = try lane.archive(["Sources", "VERSION"], to: "dist/app-\(version).tar.gz")
        let sums = try lane.checksums([archive], to: "dist/SHA256SUMS")
        let notes = try lane.writeChangelog(version: version.description)
        try lane.commitVersionBump(version, build, notes, message: "Release \(version) (\(build))")
        try lane.addGitTag("v\(version)")
        try await lane.push(tags: ["v\(version)"])
        try lane.copyToDirectory([archive, sums], directory: "../releases/\(version)")
        // DEMO_STORAGE_READ_ONLY=1 stands for a failure outside the lane's control (a storage
        // outage) after the push: the run stops unfinished, and `shiplane resume` finishes it.
        if failAtEnd || lane.environment["DEMO_STORAGE_READ_ONLY"] == "1" {
            try await lane.sh("sh", "-c", "echo 'publishing failed: storage is read-only' >&2; exit 7")
        }
        try await lane.webhook(
            lane.environment["RELEASE_WEBHOOK_URL"] ?? "http://127.0.0.1:9/none",
            template: #"{"text": "Released {{version}} (build {{build}})", "notes": "{{notes}}"}"#,
            values: ["version": version.description, "build": build.description, "notes": notes.section]
        )
    }
}

/// Tells the team when a release fails, with where and why (secrets redacted).
struct ReleaseHooks: LaneHooks {
    func onError(_ lane: LaneInfo, failure: LaneFailure, context: LaneContext) async {
        guard let url = context.environment["RELEASE_WEBHOOK_URL"] else { return }
        try? await context.webhook(url, template: #"{"text": "{{summary}}"}"#, values: ["summary": context.failureSummary(failure)])
    }
}
