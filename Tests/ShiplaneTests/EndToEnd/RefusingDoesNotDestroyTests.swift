import Foundation
import Testing

/// Another command while a run is unfinished is refused with exit 7 and changes nothing: the
/// record stays, `resume` finishes the run, before and after its push. The unfinished run is a
/// `bump` killed with its process (no supervisor left to settle it, as when CI kills a job); the
/// other command is a compiled lane, whose supervisor used to roll that run back.
@Suite("Refusing does not destroy: another command over an unfinished run exits 7", .serialized, .offThePool)
struct RefusingDoesNotDestroyTests {
    private static let release = ["bump", "minor", "--commit", "--tag", "--push"]

    /// The repository at 1.2.3 with a `notes` lane, a bare origin holding main and v1.2.3, and a
    /// `bump` killed at `fault`.
    private func killedRelease(at fault: String) throws -> (repo: TemporaryRepository, origin: TemporaryRepository) {
        let repo = try versionedRepository()
        try repo.write("Lanes/Notes.swift", """
        import Shiplane
        struct Notes: Lane {
            func run(_ lane: LaneContext) async throws {
                try await lane.sh("true")
            }
        }
        """)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes")
        let origin = try TemporaryRepository(bare: true)
        try repo.git("remote", "add", "origin", origin.path)
        try repo.git("push", "-q", "origin", "main", "v1.2.3")
        #expect(try repo.shiplane(["lanes"]).status == 0, "the lanes compile")
        let killed = try repo.shiplane(Self.release, environment: ["SHIPLANE_FAULT": fault])
        #expect(killed.status == SIGKILL, "\(killed.all)")
        return (repo, origin)
    }

    /// What the refused command must not change.
    private struct Snapshot: Equatable {
        var record: String?
        var version: String?
        var head: String
        var tags: String
        var status: String
        var originMain: String
        var originTags: String

        init(_ repo: TemporaryRepository, _ origin: TemporaryRepository) throws {
            record = repo.read(".git/shiplane/run.json")
            version = repo.read("VERSION")
            head = try repo.git("rev-parse", "HEAD")
            tags = try repo.git("tag", "--list")
            status = try repo.git("status", "--porcelain")
            originMain = try origin.git("rev-parse", "refs/heads/main")
            originTags = try origin.git("tag", "--list")
        }
    }

    @Test(arguments: ["after-step:2", "after-step:4"])
    func anotherCommandExits7AndChangesNothing(_ fault: String) throws {
        let (repo, origin) = try killedRelease(at: fault)
        let before = try Snapshot(repo, origin)
        #expect(before.record != nil, "the killed run left its record")
        let refused = try repo.shiplane(["notes"])
        #expect(refused.status == 7, "\(fault): \(refused.all)")
        #expect(refused.all.contains("shiplane resume") && refused.all.contains("shiplane rollback"), "\(refused.all)")
        #expect(!refused.all.contains("middle of its run"), "\(refused.all)")
        #expect(try Snapshot(repo, origin) == before, "\(fault): nothing changed")

        let resumed = try repo.shiplane(["resume"])
        #expect(resumed.status == 0, "\(fault): \(resumed.all)")
        #expect(repo.read("VERSION") == "1.3.0\n")
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0")
        #expect(try origin.git("rev-parse", "refs/heads/main") == (try repo.git("rev-parse", "HEAD")))
        #expect(repo.read(".git/shiplane/run.json") == nil)
    }
}
