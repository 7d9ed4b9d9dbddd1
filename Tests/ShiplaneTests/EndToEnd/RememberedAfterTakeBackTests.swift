import Foundation
import Testing
@testable import Shiplane

/// What a checkout remembers after its run took a cut-short push back (`TakenBackRecord`,
/// `PushMayStillLand`): written 0600 in the run folder and read back; a list that cannot be
/// written is a warning that says what is lost and what to look for by hand, never a silent miss.
@Suite("What a run remembers after taking a push back: written, or a warning saying what to check", .offThePool)
struct RememberedAfterTakeBackTests {
    static let reference = "refs/shiplane/run"

    @Test func aTakenBackRecordIsRememberedAndReadBack() throws {
        let repo = try TemporaryRepository()
        let warning = TakenBackRecord.remember(runID: "run-1", remote: "origin", record: Self.reference, workTree: repo.path)
        #expect(warning == nil)
        let file = repo.path + "/.git/shiplane/" + TakenBackRecord.fileName
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let store = try RunStore.forWorkTree(repo.path)
        #expect(TakenBackRecord.load(store).map(\.runID) == ["run-1"])
        // The same run again replaces its entry; an empty list removes the file.
        #expect(TakenBackRecord.remember(runID: "run-1", remote: "origin", record: Self.reference, workTree: repo.path) == nil)
        #expect(TakenBackRecord.load(store).count == 1)
        #expect(TakenBackRecord.save([], store) == nil)
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    /// A folder where the list goes: the rename over it fails, and the warning names the file,
    /// the run, and the `git ls-remote` / `git push --delete` to do by hand.
    @Test func aTakenBackRecordThatCannotBeWrittenIsAWarning() throws {
        let repo = try TemporaryRepository()
        let file = repo.path + "/.git/shiplane/" + TakenBackRecord.fileName
        try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: true)
        let warning = try #require(TakenBackRecord.remember(runID: "run-2", remote: "origin", record: Self.reference, workTree: repo.path))
        #expect(warning.contains(file), "\(warning)")
        #expect(warning.contains("run run-2"), "\(warning)")
        #expect(warning.contains("git ls-remote origin \(Self.reference)") && warning.contains("git push origin --delete \(Self.reference)"), "\(warning)")
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) && isFolder.boolValue, "left as it was")
    }

    @Test func refsThatMayStillLandAndCannotBeWrittenAreAWarningNamingThem() throws {
        let repo = try TemporaryRepository()
        var unlanded = UnlandedPush(remote: "origin", remoteHas: [])
        unlanded.mayStillLand = ["refs/tags/v1.3.0": String(repeating: "a", count: 40)]
        #expect(PushMayStillLand.remember(unlanded, runID: "run-3", workTree: repo.path) == nil)
        let store = try RunStore.forWorkTree(repo.path)
        #expect(PushMayStillLand.load(store).first?.refs == unlanded.mayStillLand)
        let file = repo.path + "/.git/shiplane/" + PushMayStillLand.fileName
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: true)
        let warning = try #require(PushMayStillLand.remember(unlanded, runID: "run-3", workTree: repo.path))
        #expect(warning.contains(file) && warning.contains("git ls-remote origin refs/tags/v1.3.0"), "\(warning)")
        // Nothing that may still land: nothing to say, whatever the file.
        #expect(PushMayStillLand.remember(UnlandedPush(remote: "origin", remoteHas: []), runID: "run-4", workTree: repo.path) == nil)
    }
}
