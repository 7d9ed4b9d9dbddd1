import Foundation
import Testing

/// Issue 37: the record that goes to origin (`refs/shiplane/run`) names no path of this machine,
/// also for a file the run wrote outside the work tree. Such a file is this machine's alone: its
/// effect stays in the local record (absolute, so this machine's rollback undoes it) and is left
/// out of origin's copy, which another clone reads and could never restore it from. Runs the built
/// `shiplane`; the git command reads origin's record.
@Suite("A file outside the work tree stays out of the record on origin, and is undone here", .serialized, .offThePool)
struct RecordOutsideWorkTreeTests {
    static let lane = #"""
    import Foundation
    import Shiplane

    struct WriteOutside: Action {
        static let name = "writeOutside"
        func run(in step: StepContext) throws {
            _ = try step.writeFile(Data("made by the release\n".utf8), to: step.lane.environment["OUTSIDE_FILE"] ?? "")
        }
    }

    struct Ship: Lane {
        func run(_ lane: LaneContext) async throws {
            _ = try lane.bumpVersion(.minor)
            try lane.commitVersionBump()
            try await lane.push()
            try lane.run(WriteOutside())
        }
    }
    """#

    @Test func aFileWrittenOutsideTheWorkTreeIsLocalOnly() throws {
        let repo = try versionedRepository()
        let origin = try TemporaryRepository(bare: true)
        try repo.git("remote", "add", "origin", origin.path)
        try repo.write("Lanes/Ship.swift", Self.lane)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: lanes")
        try repo.git("push", "-q", "origin", "main", "v1.2.3")
        // Outside the work tree (beside it, in the test's own folder).
        let outsideFolder = repo.root + "/outside"
        try FileManager.default.createDirectory(atPath: outsideFolder, withIntermediateDirectories: true)
        let outside = outsideFolder + "/notes.txt"

        // Steps: bumpVersion, commitVersionBump, push, writeOutside: killed once the 4th is recorded here and on origin.
        let killed = try repo.shiplane(["ship"], environment: ["OUTSIDE_FILE": outside, "SHIPLANE_FAULT": "after-step:4"])
        #expect(killed.status == 75, "\(killed.all)")
        #expect(FileManager.default.fileExists(atPath: outside), "the step wrote the file outside the work tree")

        let remote = try origin.git("show", "refs/shiplane/run:run.json")
        #expect(remote.contains("\"number\" : 4"), "origin's record has the 4th step: \(remote)")
        #expect(!remote.contains(outsideFolder), "no path outside the work tree: \(remote)")
        #expect(!remote.contains(repo.root), "no path of this machine: \(remote)")
        #expect(!remote.contains("notes.txt"), "the outside file's effect is local-only: \(remote)")
        let local = try #require(repo.read(".git/shiplane/run.json"))
        #expect(local.contains(outside), "the local record keeps it, to undo it here")

        // This machine's rollback undoes the file (written after the point of no return, local).
        let rollback = try repo.shiplane(["rollback"])
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(!FileManager.default.fileExists(atPath: outside), "undone here: \(rollback.all)")
    }
}
