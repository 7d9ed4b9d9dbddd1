import Shiplane

/// Shiplane checks itself with its own tool: a clean tree, a recent Swift, then the test suite.
struct Check: Lane {
    static let summary = "Clean tree, Swift 6 or later, then Scripts/test (build and every test)"

    @Flag(help: "Allow uncommitted changes")
    var allowDirty = false

    func run(_ lane: LaneContext) async throws {
        if !allowDirty {
            try lane.ensureGitStatusClean()
        }
        try await lane.ensureTool("swift", version: ">= 6.0")
        try await lane.sh("Scripts/test")
    }
}
