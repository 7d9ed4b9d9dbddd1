import Shiplane

/// Shiplane releases itself with its own lane: the version lives in the `ShiplaneVersion.current`
/// constant (what `shiplane --version` prints), the notes in CHANGELOG.md, the release in a tag.
struct Release: Lane {
    static let summary = "Bump ShiplaneVersion.current from the commits, write CHANGELOG.md, commit, tag v<version>, push"

    @Option(help: "major, minor, patch, auto (from the commits since the last release tag) or a version")
    var bump: VersionBump = .auto

    @Flag(help: "Push the release commit and its tag to origin")
    var push = false

    func run(_ lane: LaneContext) async throws {
        try lane.ensureGitBranch(matching: "main")
        try lane.ensureGitStatusClean()
        let version = try lane.bumpVersion(bump, files: [
            .pattern("Sources/Shiplane/Shiplane.swift", #"static let current = "(.+)""#),
        ])
        let notes = try lane.writeChangelog(version: version.description)
        try lane.commitVersionBump(version, notes)
        try lane.addGitTag("v\(version)", message: "Shiplane \(version)")
        if push {
            try await lane.push(tags: ["v\(version)"])
        }
    }
}
