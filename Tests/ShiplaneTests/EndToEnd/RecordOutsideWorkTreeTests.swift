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

    /// A lane's own effect type and `step.writeFile` given absolute paths (issue 37, items 4
    /// and 6). The lane's effect names a file outside the work tree and one inside it by
    /// absolute paths and moves neither (`Effect.rebased` by default): origin's record names no
    /// path of this machine, the effect naming the outside file stays local, the other is
    /// written relative. `step.writeFile` to an absolute path goes through the one check: into
    /// `.git` by its absolute path, onto a device, and a file that is a link out of the folder
    /// named are refused before anything is written, and a plain file outside is written (and undone).
    static let ownEffectLane = #"""
    import Foundation
    import Shiplane

    struct Marked: Effect {
        static let kind = "acme.marked"
        var file: String
        var also: [String]
        var reach: EffectReach { .local }
        func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {}
    }

    struct Mark: Action {
        static let name = "mark"
        func run(in step: StepContext) throws {
            let outside = step.lane.environment["OUTSIDE_FILE"] ?? ""
            let inside = step.lane.workingDirectory + "/dist/marked.txt"
            step.done(try step.record(Marked(file: outside, also: ["/repos/acme/app"]), "mark the outside file"))
            step.done(try step.record(Marked(file: inside, also: []), "mark the inside file"))
        }
    }

    struct Write: Action {
        static let name = "write"
        var path: String
        func run(in step: StepContext) throws {
            _ = try step.writeFile(Data("written\n".utf8), to: path)
        }
    }

    struct Ship: Lane {
        func run(_ lane: LaneContext) async throws {
            _ = try lane.bumpVersion(.minor)
            try lane.commitVersionBump()
            if let path = lane.environment["WRITE_BEFORE"] { try lane.run(Write(path: path)) }
            try await lane.push()
            try lane.run(Mark())
            if let path = lane.environment["WRITE_AFTER"] { try lane.run(Write(path: path)) }
        }
    }
    """#

    @Test func aLanesOwnEffectAndAbsolutePathsKeepThisMachineOutOfOriginsRecord() throws {
        let repo = try versionedRepository()
        let origin = try TemporaryRepository(bare: true)
        try repo.git("remote", "add", "origin", origin.path)
        try repo.write("Lanes/Ship.swift", Self.ownEffectLane)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: lanes")
        try repo.git("push", "-q", "origin", "main", "v1.2.3")
        let outsideFolder = repo.root + "/outside"
        try FileManager.default.createDirectory(atPath: outsideFolder, withIntermediateDirectories: true)
        let outside = outsideFolder + "/notes.txt"
        #expect(FileManager.default.createFile(atPath: outside, contents: Data("kept\n".utf8)))

        // Steps: bumpVersion, commitVersionBump, push, mark: killed once the 4th is recorded here and on origin.
        let killed = try repo.shiplane(["ship"], environment: ["OUTSIDE_FILE": outside, "SHIPLANE_FAULT": "after-step:4"])
        #expect(killed.status == 75, "\(killed.all)")
        let remote = try origin.git("show", "refs/shiplane/run:run.json")
        #expect(remote.contains("\"number\" : 4"), "origin's record has the 4th step: \(remote)")
        #expect(!remote.contains(repo.root), "no path of this machine: \(remote)")
        #expect(!remote.contains(outsideFolder), "\(remote)")
        #expect(!remote.contains("mark the outside file"), "the effect naming the outside file is local-only: \(remote)")
        #expect(remote.contains("dist/marked.txt"), "the effect naming a work-tree file goes, relative: \(remote)")
        let local = try #require(repo.read(".git/shiplane/run.json"))
        #expect(local.contains(outside), "the local record keeps it")
        let rollback = try repo.shiplane(["rollback"])
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(repo.read("VERSION") == "1.3.0\n", "past the push, the bump stays")

        // step.writeFile with absolute paths: the one check, before anything is written.
        let elsewhere = repo.root + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: elsewhere + "/victim.txt", contents: Data("victim\n".utf8)))
        // The file itself a link out of the folder named (its folders are this machine's layout,
        // such as macOS's /tmp -> /private/tmp, and are followed).
        try FileManager.default.createSymbolicLink(atPath: outsideFolder + "/vict", withDestinationPath: "../elsewhere/victim.txt")
        for (path, why) in [(repo.path + "/.git/hooks/post-commit", "inside"), ("/dev/full", "a device"),
                            (outsideFolder + "/vict", "symbolic link")] {
            let refused = try repo.shiplane(["ship"], environment: ["OUTSIDE_FILE": outside, "WRITE_BEFORE": path])
            #expect(refused.status == 1, "\(path): \(refused.all)")
            #expect(refused.stderr.contains(why), "\(path): \(refused.all)")
            #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/hooks/post-commit"))
            #expect(try String(contentsOfFile: elsewhere + "/victim.txt", encoding: .utf8) == "victim\n", "nothing written through the link")
            #expect(repo.read("VERSION") == "1.3.0\n", "\(path): rolled back")
            #expect(try repo.git("tag", "--list") == "v1.2.3", "\(path)")
        }
        // A plain file outside is the lane's to write: written, then undone with the run.
        let written = outsideFolder + "/written.txt"
        let wrote = try repo.shiplane(["ship"], environment: ["OUTSIDE_FILE": outside, "WRITE_AFTER": written, "SHIPLANE_FAULT": "after-step:5"])
        #expect(wrote.status == 75, "\(wrote.all)")
        #expect(FileManager.default.fileExists(atPath: written))
        #expect(try !origin.git("show", "refs/shiplane/run:run.json").contains(repo.root), "no path of this machine")
        let undone = try repo.shiplane(["rollback"])
        #expect(undone.status == 0, "\(undone.all)")
        #expect(!FileManager.default.fileExists(atPath: written), "undone here: \(undone.all)")
        #expect(FileManager.default.fileExists(atPath: outside), "what the lane's effect only named is untouched")
    }
}
